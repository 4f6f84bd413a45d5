package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbmem/dbmem/internal/servertrust"
	"github.com/dbmem/dbmem/internal/units"
)

// ConnOptions say how to connect. Empty fields follow libpq's conventions:
// PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD, ~/.pgpass, and the OS
// user name.
type ConnOptions struct {
	User     string
	Database string
	// Host and Port, when set (or PGHOST and PGPORT), replace the socket
	// directory found in postmaster.pid and keep only the instance on Port.
	Host    string
	Port    int
	Timeout time.Duration
	// Disabled skips SQL entirely (--no-connect).
	Disabled bool
	// Trust says which servers may receive a password and whether in
	// clear (--server-account, --allow-cleartext-password).
	Trust servertrust.Policy
	// Work also reads what the memory budget measures (spills, per-role
	// settings, the log's location: WorkStats); plan and report ask.
	Work bool
	// Statements are run, in order, once the server is proven and read
	// (Connector.Exec: apply's ALTER SYSTEM, ALTER ROLE, pg_reload_conf);
	// their rows come back in Live.Results.
	Statements []string
}

// Live is what a connection to the running server tells.
type Live struct {
	Version  string           `json:"version"`
	Major    int              `json:"major"`
	Settings Settings         `json:"settings"`
	Activity map[int]Activity `json:"activity"` // pg_stat_activity by PID
	// As describes the connection: "connected as root via /run/postgresql port 5432".
	As string `json:"as"`
	// SessionPID is pg_backend_pid() of this connection.
	SessionPID int `json:"session_pid,omitempty"`
	// Work is what the memory budget reads (ConnOptions.Work), nil when
	// not asked.
	Work *WorkStats `json:"work,omitempty"`
	// Results are the rows of ConnOptions.Statements, one list per
	// statement, every value as text ("" for NULL).
	Results [][][]string `json:"results,omitempty"`
	// Contexts is the answer to Connector.LogContexts.
	Contexts *ContextsAnswer `json:"contexts,omitempty"`
	// Backends is the answer to Connector.Backends: query texts, never
	// recorded (capture's recorder asks only for Live).
	Backends *[]BackendActivity `json:"backends,omitempty"`
}

// Activity is one pg_stat_activity row.
type Activity struct {
	BackendType string `json:"backend_type"`
	User        string `json:"user,omitempty"`
	Database    string `json:"database,omitempty"`
	Client      string `json:"client,omitempty"`
	State       string `json:"state,omitempty"`
}

// LiveSource supplies what a connection would tell about an instance: a
// real connection (Connector), or a captured bundle.
type LiveSource interface {
	Live(ctx context.Context, in *Instance) (Live, error)
}

// WithEnv fills Host and Port, where they are not set, from PGHOST and
// PGPORT as libpq would: PGHOST is a host name or a socket directory (a
// path), PGPORT keeps only the instance on that port, as --pg-port does.
// It also says where the port came from ("--pg-port", "PGPORT", or "").
// A PGPORT that is not a port is an error: libpq would refuse it too.
func (o ConnOptions) WithEnv(getenv func(string) string) (ConnOptions, string, error) {
	if o.Host == "" {
		o.Host = getenv("PGHOST")
	}
	if o.Port != 0 {
		return o, "--pg-port", nil
	}
	v := strings.TrimSpace(getenv("PGPORT"))
	if v == "" {
		return o, "", nil
	}
	p, err := strconv.Atoi(v)
	if err != nil || p <= 0 || p > 65535 {
		return o, "", fmt.Errorf("PGPORT=%q is not a port", v)
	}
	o.Port = p
	return o, "PGPORT", nil
}

// shortPgError keeps the server's message and drops the connection
// details pgconn puts in front of a failed connection's cause ("failed to
// connect to `user=... database=...`: ..."). dbmem's own messages are kept
// whole: cutting them at their last ": " lost their subject, depending on
// the length of a path in them.
func shortPgError(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	s := err.Error()
	if !strings.Contains(s, "failed to connect to") {
		return s
	}
	if i := strings.LastIndex(s, ": "); i >= 0 && len(s)-i < 200 {
		return s[i+2:]
	}
	return s
}

// readLive reads the version, settings and pg_stat_activity.
func readLive(ctx context.Context, conn *pgx.Conn) (Live, error) {
	var l Live
	var num string
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('server_version_num'), pg_backend_pid()").Scan(&l.Version, &num, &l.SessionPID); err != nil {
		return l, fmt.Errorf("read server version: %w", err)
	}
	n, _ := strconv.Atoi(num)
	l.Major = n / 10000 // 150019 -> 15; 90624 -> 9
	var err error
	if l.Settings, err = readSettings(ctx, conn); err != nil {
		return l, err
	}
	l.Activity, err = readActivity(ctx, conn, l.Major)
	return l, err
}

func readSettings(ctx context.Context, conn *pgx.Conn) (Settings, error) {
	rows, err := conn.Query(ctx, `SELECT name, current_setting(name), setting, coalesce(unit, '') FROM pg_settings WHERE name = ANY($1)`, SettingNames)
	if err != nil {
		return nil, fmt.Errorf("read pg_settings: %w", err)
	}
	s := Settings{}
	for rows.Next() {
		var name, shown, raw, unit string
		if err := rows.Scan(&name, &shown, &raw, &unit); err != nil {
			return nil, fmt.Errorf("read pg_settings: %w", err)
		}
		st := Setting{Value: shown, Source: FromServer}
		if m, ok := units.PGUnit(unit); ok {
			if v, err := strconv.ParseUint(raw, 10, 64); err == nil {
				b := v * m
				st.Bytes = &b
			}
		}
		s[name] = st
	}
	return s, rows.Err()
}

func readActivity(ctx context.Context, conn *pgx.Conn, major int) (map[int]Activity, error) {
	if major < 10 {
		return nil, nil // no backend_type before 10: roles come from titles
	}
	rows, err := conn.Query(ctx, `SELECT pid, coalesce(backend_type, ''), coalesce(usename::text, ''),
		coalesce(datname::text, ''), coalesce(host(client_addr) || '(' || client_port || ')', CASE WHEN client_port = -1 THEN '[local]' ELSE '' END),
		coalesce(state, '') FROM pg_stat_activity`)
	if err != nil {
		return nil, fmt.Errorf("read pg_stat_activity: %w", err)
	}
	out := map[int]Activity{}
	for rows.Next() {
		var pid int
		var a Activity
		if err := rows.Scan(&pid, &a.BackendType, &a.User, &a.Database, &a.Client, &a.State); err != nil {
			return nil, fmt.Errorf("read pg_stat_activity: %w", err)
		}
		out[pid] = a
	}
	return out, rows.Err()
}
