package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/linux"
)

// ContextsFunction is the function that has a backend write its memory
// contexts to the server log (PostgreSQL 14+). It is looked up in the
// catalog, never assumed from the version.
const ContextsFunction = "pg_catalog.pg_log_backend_memory_contexts(integer)"

// ContextsGrant is the statement that lets a role call it.
const ContextsGrant = "GRANT EXECUTE ON FUNCTION pg_catalog.pg_log_backend_memory_contexts(integer) TO %s"

// contextsSettings are the settings that say where the dumps go.
var contextsSettings = []string{"log_destination", "logging_collector", "log_directory", "log_filename",
	"log_line_prefix", "log_timezone", "log_min_messages", "data_directory", "syslog_ident", "syslog_facility",
	"lc_messages", "event_source"}

// ContextsRequest asks, over the verified connection, that each backend in
// PIDs write its memory contexts to the server log. A PID is asked only
// when /proc shows it is a child of Postmaster (the instance the
// connection was proven to reach).
type ContextsRequest struct {
	Postmaster int   `json:"postmaster_pid"`
	PIDs       []int `json:"pids"`
	fs         linux.FS
}

// ContextsAnswer is what the server said.
type ContextsAnswer struct {
	// Role is the role connected; Superuser whether it is one.
	Role      string `json:"role"`
	Superuser bool   `json:"superuser"`
	// Function is true when ContextsFunction is in the catalog; Allowed
	// when Role may execute it.
	Function bool `json:"function"`
	Allowed  bool `json:"allowed"`
	// Settings are contextsSettings as the server has them ("" unknown).
	Settings map[string]string `json:"settings"`
	Calls    []ContextsCall    `json:"calls"`
}

// ContextsCall is one backend asked.
type ContextsCall struct {
	PID int `json:"pid"`
	// At is the server's clock_timestamp() just before the call: the dump
	// is written after it.
	At time.Time `json:"at,omitzero"`
	// Sent is the function's answer: false when the server says the PID is
	// not one of its processes.
	Sent bool `json:"sent"`
	// Error says why it was not asked, or what the call failed with.
	Error string `json:"error,omitempty"`
}

// LogContexts connects as Live does (the same proof, the same check that
// the server is the instance) and asks each backend of req to log its
// memory contexts. The answer holds what stops it: the function missing,
// the grant missing, a PID that is not the instance's.
func (c Connector) LogContexts(ctx context.Context, in *Instance, pids []int) (ContextsAnswer, error) {
	c.contexts = &ContextsRequest{Postmaster: in.PostmasterPID, PIDs: pids, fs: c.fs()}
	c.Options.Work, c.Options.Statements = false, nil // this connection asks only this
	l, err := c.Live(ctx, in)
	if err != nil {
		return ContextsAnswer{}, err
	}
	if l.Contexts == nil {
		return ContextsAnswer{}, errors.New("the connection did not run the request (an older dbmem helper?)")
	}
	return *l.Contexts, nil
}

// runContexts runs req on conn, after the connection was checked.
func runContexts(ctx context.Context, conn *pgx.Conn, req *ContextsRequest) (*ContextsAnswer, error) {
	a := &ContextsAnswer{Settings: map[string]string{}}
	err := conn.QueryRow(ctx, `SELECT current_user, coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = current_user), false),
		to_regprocedure($1) IS NOT NULL`, ContextsFunction).Scan(&a.Role, &a.Superuser, &a.Function)
	if err != nil {
		return nil, fmt.Errorf("look up %s: %w", ContextsFunction, err)
	}
	if err := readContextsSettings(ctx, conn, a); err != nil {
		return nil, err
	}
	if !a.Function {
		return a, nil
	}
	if err := conn.QueryRow(ctx, `SELECT has_function_privilege($1, 'EXECUTE')`, ContextsFunction).Scan(&a.Allowed); err != nil {
		return nil, fmt.Errorf("check the privilege on %s: %w", ContextsFunction, err)
	}
	if !a.Allowed {
		return a, nil
	}
	for _, pid := range req.PIDs {
		a.Calls = append(a.Calls, callContexts(ctx, conn, req, pid))
	}
	return a, nil
}

func readContextsSettings(ctx context.Context, conn *pgx.Conn, a *ContextsAnswer) error {
	// pg_settings leaves out what the role may not see (log_directory is
	// for superusers and pg_read_all_settings): such a setting stays "".
	rows, err := conn.Query(ctx, `SELECT name, setting FROM pg_settings WHERE name = ANY($1)`, contextsSettings)
	if err != nil {
		return fmt.Errorf("read the log settings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var n, v string
		if err := rows.Scan(&n, &v); err != nil {
			return fmt.Errorf("read the log settings: %w", err)
		}
		a.Settings[n] = v
	}
	return rows.Err()
}

// callContexts asks one backend, after checking in /proc that it is a
// child of the verified postmaster.
func callContexts(ctx context.Context, conn *pgx.Conn, req *ContextsRequest, pid int) ContextsCall {
	call := ContextsCall{PID: pid}
	fs := req.fs.OrDefault()
	st, err := linux.ReadStat(fs, pid)
	switch {
	case err != nil:
		call.Error = fmt.Sprintf("not asked: process %d cannot be read (%v)", pid, err)
		return call
	case st.PPid != req.Postmaster || !IsServerComm(st.Comm):
		call.Error = fmt.Sprintf("not asked: process %d is not a backend of postmaster %d (its parent is %d, its name %q)", pid, req.Postmaster, st.PPid, st.Comm)
		return call
	}
	if err := conn.QueryRow(ctx, `SELECT clock_timestamp(), pg_catalog.pg_log_backend_memory_contexts($1)`, pid).Scan(&call.At, &call.Sent); err != nil {
		call.Error = shortPgError(err)
	}
	return call
}
