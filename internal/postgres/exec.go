package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// maxResultRows bounds the rows kept of one statement.
const maxResultRows = 1000

// Exec connects to the instance as Live does (proven first, through the
// helper as the server's account when dbmem runs as root) and runs the
// statements in order, each on its own (ALTER SYSTEM cannot run in a
// transaction block). It returns each statement's rows as text. The first
// statement that fails stops the rest; the error names it.
func (c Connector) Exec(ctx context.Context, in *Instance, stmts []string) ([][][]string, error) {
	if len(stmts) == 0 {
		return nil, errors.New("no statement to run")
	}
	c.Options.Statements = stmts
	c.Options.Work = false
	l, err := c.Live(ctx, in)
	if err != nil {
		return nil, err
	}
	if len(l.Results) != len(stmts) {
		return nil, fmt.Errorf("%d results for %d statements", len(l.Results), len(stmts))
	}
	return l.Results, nil
}

// runStatements runs each statement and keeps its rows as text.
func runStatements(ctx context.Context, conn *pgx.Conn, stmts []string) ([][][]string, error) {
	out := make([][][]string, 0, len(stmts))
	for i, s := range stmts {
		rows, err := conn.Query(ctx, s, pgx.QueryExecModeExec) // no simple protocol: it needs client_encoding UTF8 (a SQL_ASCII server has not)
		if err != nil {
			return nil, fmt.Errorf("statement %d (%s): %s", i+1, s, shortPgError(err))
		}
		var got [][]string
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("statement %d (%s): %s", i+1, s, shortPgError(err))
			}
			if len(got) < maxResultRows {
				got = append(got, textRow(vals))
			}
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("statement %d (%s): %s", i+1, s, shortPgError(err))
		}
		out = append(out, got)
	}
	return out, nil
}

func textRow(vals []any) []string {
	row := make([]string, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case nil:
		case string:
			row[i] = x
		case []any:
			row[i] = fmt.Sprint(x...)
		default:
			row[i] = fmt.Sprint(x)
		}
	}
	return row
}
