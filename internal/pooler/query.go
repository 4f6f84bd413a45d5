package pooler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/dbmem/dbmem/internal/asowner"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// consoleRequest is one console read: over Socket, served by PID run by
// UID, as User, without a password. It is also the helper's request.
type consoleRequest struct {
	Socket    string `json:"socket"`
	PID       int    `json:"pid"`
	UID       uint32 `json:"uid"`
	User      string `json:"user"`
	TimeoutMS int64  `json:"timeout_ms"`
	// Reload runs RELOAD first (PgBouncer rereads its files), as the
	// admin user pgbouncer.
	Reload bool `json:"reload,omitempty"`
}

// Bounds of a console's answers: a PgBouncer with 10,000 pools answers
// SHOW POOLS in about 1.5 MB.
const (
	maxMessageBytes = 1 << 20
	maxAnswerBytes  = 8 << 20
	maxAnswerRows   = 100000
)

// readConsole connects and reads SHOW VERSION, POOLS, DATABASES and
// CONFIG. The listener must be PID run by UID (SO_PEERCRED, before a byte
// is written); no password is given, so any request for one ends the
// connection.
func readConsole(ctx context.Context, req consoleRequest) (*Console, error) {
	timeout := time.Duration(req.TimeoutMS) * time.Millisecond
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := pgconn.ConnectConfig(ctx, consoleConfig(req, timeout))
	if err != nil {
		return nil, shortConnError(err)
	}
	defer conn.Close(context.Background())
	if req.Reload {
		if _, err := conn.Exec(ctx, "RELOAD").ReadAll(); err != nil {
			return nil, fmt.Errorf("RELOAD: %w", shortConnError(err))
		}
	}
	return readAll(ctx, conn)
}

// consoleConfig: database pgbouncer over the socket, no password, no TLS,
// require_auth=none, the dial proving the listener.
func consoleConfig(req consoleRequest, timeout time.Duration) *pgconn.Config {
	dir, port := splitSocket(req.Socket)
	cfg, _ := pgconn.ParseConfig("sslmode=disable passfile=/dev/null")
	cfg.Host, cfg.Port, cfg.User, cfg.Database, cfg.Password = dir, port, req.User, "pgbouncer", ""
	cfg.ConnectTimeout = timeout
	cfg.RequireAuth = "none"
	cfg.TLSConfig, cfg.Fallbacks = nil, nil
	cfg.RuntimeParams = map[string]string{"application_name": "dbmem"}
	want := servertrust.Peer{PID: req.PID, UID: req.UID}
	cfg.DialFunc = func(ctx context.Context, _, _ string) (netConn, error) {
		return servertrust.DialUnix(ctx, req.Socket, want)
	}
	cfg.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		f := pgproto3.NewFrontend(r, w)
		f.SetMaxBodyLen(maxMessageBytes)
		return f
	}
	return cfg
}

// splitSocket turns DIR/.s.PGSQL.PORT into DIR and PORT.
func splitSocket(sock string) (string, uint16) {
	i := strings.LastIndex(sock, "/.s.PGSQL.")
	if i < 0 {
		return sock, 0
	}
	var port uint16
	fmt.Sscanf(sock[i+len("/.s.PGSQL."):], "%d", &port)
	return sock[:i], port
}

// readAll runs the SHOW commands and parses their answers.
func readAll(ctx context.Context, conn *pgconn.PgConn) (*Console, error) {
	c := &Console{}
	budget := int64(maxAnswerBytes)
	if v, err := show(ctx, conn, "SHOW VERSION", &budget); err == nil && len(v.Rows) == 1 && len(v.Rows[0]) > 0 && v.Rows[0][0] != nil {
		c.Version = clip(*v.Rows[0][0])
	}
	pools, err := show(ctx, conn, "SHOW POOLS", &budget)
	if err == nil {
		c.Pools, err = parsePools(pools)
	}
	if err != nil {
		return nil, err
	}
	dbs, err := show(ctx, conn, "SHOW DATABASES", &budget)
	if err == nil {
		c.Databases, err = parseDatabases(dbs)
	}
	if err != nil {
		return nil, err
	}
	if cfg, err := show(ctx, conn, "SHOW CONFIG", &budget); err == nil {
		c.Config, _ = parseConfig(cfg) // a stats user may not be allowed it: the files then say
	}
	return c, nil
}

// show runs one command in the simple protocol (the only one the console
// speaks), within the remaining byte budget.
func show(ctx context.Context, conn *pgconn.PgConn, sql string, budget *int64) (table, error) {
	mrr := conn.Exec(ctx, sql)
	defer mrr.Close()
	var t table
	if !mrr.NextResult() {
		return t, fmt.Errorf("%s: %w", sql, shortConnError(mrr.Close()))
	}
	rr := mrr.ResultReader()
	for _, f := range rr.FieldDescriptions() {
		t.Cols = append(t.Cols, f.Name)
	}
	for rr.NextRow() {
		row := make([]*string, len(rr.Values()))
		for i, v := range rr.Values() {
			*budget -= int64(len(v)) + 16
			if v != nil {
				s := string(v)
				row[i] = &s
			}
		}
		t.Rows = append(t.Rows, row)
		if *budget < 0 || len(t.Rows) > maxAnswerRows {
			conn.Close(context.Background())
			return t, fmt.Errorf("%s: the answer is larger than %d bytes or %d rows: not read", sql, maxAnswerBytes, maxAnswerRows)
		}
	}
	if _, err := rr.Close(); err != nil {
		return t, fmt.Errorf("%s: %w", sql, shortConnError(err))
	}
	return t, nil
}

// shortConnError keeps the server's message and the cause, without
// connection details.
func shortConnError(err error) error {
	if err == nil {
		return fmt.Errorf("no answer")
	}
	if m := requestedAuth.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("the console asked for a password (%s) and dbmem sends none to a pooler", m[1])
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %s", pe.Severity, pe.Message)
	}
	return err
}

var requestedAuth = regexp.MustCompile(`server requested (\S+) authentication`)

// ConsoleHelperCommand is the hidden subcommand that makes dbmem's binary
// read a PgBouncer console as the OS account it runs as.
const ConsoleHelperCommand = "internal-pooler-helper"

// NewHelper returns the runner of the console helper.
func NewHelper() *asowner.Runner { return &asowner.Runner{Args: []string{ConsoleHelperCommand}} }

// ServeHelper is the helper's side: one request on stdin, one answer on
// stdout. It serves only its own account's pooler, as user pgbouncer.
func ServeHelper(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	return asowner.Serve(ctx, stdin, stdout, func(ctx context.Context, req consoleRequest) (any, error) {
		if uint32(os.Geteuid()) != req.UID || req.UID == 0 {
			return nil, fmt.Errorf("helper runs as uid %d, asked to serve uid %d", os.Geteuid(), req.UID)
		}
		if req.User != "pgbouncer" || !strings.Contains(req.Socket, "/.s.PGSQL.") {
			return nil, fmt.Errorf("the helper reads only a console's socket as user pgbouncer")
		}
		return readConsole(ctx, req)
	})
}
