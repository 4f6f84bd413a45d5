package mysql

import (
	"context"
	"database/sql"
	"fmt"
)

// perfSchemaQuery lists the largest current memory users by event name.
const perfSchemaQuery = `SELECT EVENT_NAME, CURRENT_NUMBER_OF_BYTES_USED
FROM performance_schema.memory_summary_global_by_event_name
WHERE CURRENT_NUMBER_OF_BYTES_USED > 0
ORDER BY CURRENT_NUMBER_OF_BYTES_USED DESC LIMIT 15`

func readLive(ctx context.Context, db *sql.DB) (Live, error) {
	l := Live{}
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&l.Version); err != nil {
		return l, fmt.Errorf("SELECT VERSION(): %w", err)
	}
	var err error
	if l.Variables, err = nameValues(ctx, db, "SHOW GLOBAL VARIABLES"); err != nil {
		return l, err
	}
	if l.Status, err = nameValues(ctx, db, "SHOW GLOBAL STATUS"); err != nil {
		return l, err
	}
	if on, _ := ParseBool(l.Variables["performance_schema"]); on {
		l.PerfSchema, _ = perfSchema(ctx, db) // not granted: left out
	}
	return l, nil
}

// nameValues reads a two-column SHOW statement.
func nameValues(ctx context.Context, db *sql.DB, q string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k string
		var v sql.NullString
		if err := rows.Scan(&k, &v); err != nil {
			return out, fmt.Errorf("%s: %w", q, err)
		}
		out[NormalizeName(k)] = v.String
	}
	return out, rows.Err()
}

func perfSchema(ctx context.Context, db *sql.DB) ([]MemoryEvent, error) {
	rows, err := db.QueryContext(ctx, perfSchemaQuery)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []MemoryEvent
	for rows.Next() {
		var e MemoryEvent
		if err := rows.Scan(&e.Event, &e.Bytes); err != nil {
			return out, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
