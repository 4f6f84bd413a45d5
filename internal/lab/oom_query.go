package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
)

// session is an open connection and the backend serving it.
type session struct {
	conn *pgx.Conn
	pid  int
}

// connect opens a session on the cluster's socket.
func (r *oomRun) connect(ctx context.Context) (session, error) {
	conn, err := pgx.Connect(ctx, r.c.ConnString("")+" connect_timeout=5")
	if err != nil {
		return session{}, fmt.Errorf("connect to the lab's cluster: %w", err)
	}
	s := session{conn: conn}
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&s.pid); err != nil {
		conn.Close(ctx)
		return session{}, err
	}
	return s, nil
}

// openIdle opens the idle sessions that stand for everybody else's.
func (r *oomRun) openIdle(ctx context.Context) ([]session, error) {
	var out []session
	for i := 0; i < r.cfg.IdleSessions; i++ {
		s, err := r.connect(ctx)
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
	return out, nil
}

func closeAll(ss []session) {
	for _, s := range ss {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		s.conn.Close(ctx)
		cancel()
	}
}

// openRunaway opens the runaway query's session with the field report's
// settings: work_mem at its maximum, no parallel workers, no JIT.
func (r *oomRun) openRunaway(ctx context.Context) (session, error) {
	s, err := r.connect(ctx)
	if err != nil {
		return s, err
	}
	for _, set := range []string{"SET work_mem = '" + r.cfg.WorkMem + "'", "SET max_parallel_workers_per_gather = 0", "SET jit = off"} {
		if _, err := s.conn.Exec(ctx, set); err != nil {
			s.conn.Close(ctx)
			return s, fmt.Errorf("%s: %w", set, err)
		}
	}
	return s, nil
}

// classify names what became of the query from its error.
func classify(err error, timedOut bool) (outcome, msg string) {
	var pe *pgconn.PgError
	switch {
	case err == nil:
		return OutcomeFinished, ""
	case errors.As(err, &pe) && pe.Code == "53200":
		msg = "ERROR: " + pe.Message
		if pe.Detail != "" {
			msg += " DETAIL: " + pe.Detail
		}
		return OutcomeOutOfMemory, inert.Text(msg)
	case timedOut:
		return OutcomeCancelled, inert.Text(err.Error())
	}
	return OutcomeKilled, inert.Text(err.Error())
}

// watchGone reports when pid is no longer running (polled every 5 ms).
func watchGone(ctx context.Context, pid int, gone chan<- time.Time) {
	for {
		if !pgcluster.Alive(pid) {
			gone <- time.Now()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// sampleMemory reads the cgroup's usage and the runaway backend's
// anonymous memory every 100 ms until ctx ends.
func (r *oomRun) sampleMemory(ctx context.Context, pid int, out chan<- []MemSample) {
	var ss []MemSample
	for {
		s := MemSample{At: time.Now(), CgroupBytes: r.g.Read().UsageBytes}
		if m, err := procStatus(r.fs, pid, "RssAnon"); err == nil {
			s.RunawayBytes = m["RssAnon"]
		}
		ss = append(ss, s)
		select {
		case <-ctx.Done():
			out <- ss
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitReady polls until a new connection can run a query: the server is
// back after its crash restart.
func (r *oomRun) waitReady(ctx context.Context, limit time.Duration) (time.Time, error) {
	end := time.Now().Add(limit)
	var last error
	for time.Now().Before(end) {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(cctx, r.c.ConnString("")+" connect_timeout=2")
		if err == nil {
			_, err = conn.Exec(cctx, "SELECT 1")
			conn.Close(cctx)
		}
		cancel()
		if err == nil {
			return time.Now(), nil
		}
		last = err
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return time.Time{}, err
		}
	}
	return time.Time{}, fmt.Errorf("the server did not accept a query within %s of the kill: %v", limit, last)
}

// alive runs SELECT 1 on each session; it returns how many failed and the
// first error.
func alive(ctx context.Context, ss []session) (lost int, first string) {
	for _, s := range ss {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := s.conn.Exec(cctx, "SELECT 1")
		cancel()
		if err != nil {
			lost++
			if first == "" {
				first = inert.Text(err.Error())
			}
		}
	}
	return lost, first
}

// othersThan lists every process outside the cluster (0: none yet), this
// process and its children (pgbench).
func othersThan(fs linux.FS, cluster int) []OtherProcess {
	skip := map[int]bool{}
	for _, root := range []int{cluster, os.Getpid()} {
		if root <= 1 {
			continue // 0 or init: their trees are the whole host
		}
		for _, p := range tree(fs, root) {
			skip[p] = true
		}
	}
	return othersOutside(fs, skip)
}
