package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/units"
	"github.com/jackc/pgx/v5"
)

// BackendActivity is what pg_stat_activity says of one backend, for a
// per-backend view (dbmem watch): who, since when, and the query, cut at
// MaxQueryBytes. The query is shown on a screen, never recorded or
// captured.
type BackendActivity struct {
	PID          int       `json:"pid"`
	BackendType  string    `json:"backend_type,omitempty"`
	User         string    `json:"user,omitempty"`
	Database     string    `json:"database,omitempty"`
	State        string    `json:"state,omitempty"`
	BackendStart time.Time `json:"backend_start,omitzero"`
	XactStart    time.Time `json:"xact_start,omitzero"`
	QueryStart   time.Time `json:"query_start,omitzero"`
	WaitEvent    string    `json:"wait_event,omitempty"`
	Query        string    `json:"query,omitempty"`
}

// MaxQueryBytes bounds each query text read (track_activity_query_size is
// 1 KiB by default).
const MaxQueryBytes = 1024

// backendsRequest asks for BackendActivity on the verified connection.
type backendsRequest struct{}

// BackendsAnswer is every backend's activity but the one that served the
// connection, SessionPID (it exits when the connection closes).
type BackendsAnswer struct {
	SessionPID int
	Backends   []BackendActivity
}

// Backends connects as Live does (the same proof and check) and reads
// every backend's activity with its query.
func (c Connector) Backends(ctx context.Context, in *Instance) (BackendsAnswer, error) {
	c.backends = &backendsRequest{}
	c.Options.Work, c.Options.Statements = false, nil // this connection asks only this
	l, err := c.Live(ctx, in)
	if err != nil {
		return BackendsAnswer{}, err
	}
	if l.Backends == nil {
		return BackendsAnswer{}, errors.New("the connection did not read the backends (an older dbmem helper?)")
	}
	return BackendsAnswer{SessionPID: l.SessionPID, Backends: *l.Backends}, nil
}

func readBackends(ctx context.Context, conn *pgx.Conn) (*[]BackendActivity, error) {
	rows, err := conn.Query(ctx, `SELECT pid, coalesce(backend_type, ''), coalesce(usename::text, ''), coalesce(datname::text, ''),
		coalesce(state, ''), backend_start, xact_start, query_start,
		coalesce(wait_event_type || ': ' || wait_event, ''), left(coalesce(query, ''), $1)
		FROM pg_stat_activity WHERE pid <> pg_backend_pid()`, MaxQueryBytes)
	if err != nil {
		return nil, fmt.Errorf("read pg_stat_activity: %w", err)
	}
	defer rows.Close()
	out := []BackendActivity{}
	for rows.Next() {
		var a BackendActivity
		var bs, xs, qs *time.Time
		if err := rows.Scan(&a.PID, &a.BackendType, &a.User, &a.Database, &a.State, &bs, &xs, &qs, &a.WaitEvent, &a.Query); err != nil {
			return nil, fmt.Errorf("read pg_stat_activity: %w", err)
		}
		a.BackendStart, a.XactStart, a.QueryStart = units.Deref(bs), units.Deref(xs), units.Deref(qs)
		out = append(out, a)
	}
	return &out, rows.Err()
}
