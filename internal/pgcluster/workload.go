package pgcluster

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// ConnString returns a libpq-style connection string for the cluster's unix
// socket as the "postgres" superuser.
func (c *Cluster) ConnString(db string) string {
	db = cmp.Or(db, "postgres")
	return fmt.Sprintf("host=%s port=%d user=postgres dbname=%s sslmode=disable", c.SocketDir, c.Port, db)
}

// Connect opens one connection to the cluster.
func (c *Cluster) Connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, c.ConnString(""))
	if err != nil {
		return nil, fmt.Errorf("connect to test cluster on port %d: %w", c.Port, err)
	}
	return conn, nil
}

// Exec runs statements on a fresh connection and returns once its backend
// has exited and the postmaster has reaped it: a backend takes a moment to
// exit after its client closed (longer on a loaded host), and a test that
// counts the server's connections next must not find it (nor the lab's
// fault counts, which the postmaster gets when it reaps, miss it).
func (c *Cluster) Exec(ctx context.Context, sqls ...string) error {
	conn, err := c.Connect(ctx)
	if err != nil {
		return err
	}
	pid := int(conn.PgConn().PID())
	defer func() {
		conn.Close(ctx)
		waitReaped(pid, backendExitWait)
	}()
	for _, s := range sqls {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// backendExitWait bounds the wait for a closed connection's backend to exit.
const backendExitWait = 2 * time.Minute

// waitReaped waits until pid has no /proc entry any more (exited and reaped).
func waitReaped(pid int, d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			return
		}
	}
}

// RowBytes is the size of one row of a table made by CreateTable: two rows
// fill an 8 KiB page, uncompressed and not TOASTed.
const RowBytes = 4000

// CreateTable creates an unlogged table of about size bytes on disk whose
// pages are filled with incompressible-looking data stored in the heap itself.
func (c *Cluster) CreateTable(ctx context.Context, name string, size int64) error {
	rows := size / 8192 * 2
	return c.Exec(ctx,
		fmt.Sprintf("DROP TABLE IF EXISTS %s", pgx.Identifier{name}.Sanitize()),
		fmt.Sprintf("CREATE UNLOGGED TABLE %s (id int, pad text)", pgx.Identifier{name}.Sanitize()),
		fmt.Sprintf("ALTER TABLE %s ALTER COLUMN pad SET STORAGE PLAIN", pgx.Identifier{name}.Sanitize()),
		fmt.Sprintf("INSERT INTO %s SELECT g, repeat(md5(g::text), %d) FROM generate_series(1, %d) g",
			pgx.Identifier{name}.Sanitize(), RowBytes/32, rows),
	)
}

// Prewarm loads the whole table into shared_buffers with pg_prewarm.
func (c *Cluster) Prewarm(ctx context.Context, table string) error {
	return c.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_prewarm",
		fmt.Sprintf("SELECT pg_prewarm(%s, 'buffer')", quoteLiteral(table)))
}

func quoteLiteral(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

// Readers are open connections that have each read a whole table, so each
// backend has mapped every shared buffer page of it; they then stay idle.
type Readers struct {
	Conns []*pgx.Conn
	PIDs  []int
}

// Close closes every connection.
func (r *Readers) Close(ctx context.Context) {
	for _, c := range r.Conns {
		if c != nil { // not opened: OpenReaders failed or was cancelled
			c.Close(ctx)
		}
	}
}

// OpenReaders opens n connections; each reads table (SELECT count(*),
// without parallel workers) once.
// It uses up to parallel connections at a time (at least 1).
func (c *Cluster) OpenReaders(ctx context.Context, n, parallel int, table string) (*Readers, error) {
	r := &Readers{Conns: make([]*pgx.Conn, n), PIDs: make([]int, n)}
	if parallel < 1 {
		parallel = 1
	}
	sem := make(chan struct{}, parallel)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			r.Conns[i], r.PIDs[i], errs[i] = c.openReader(ctx, table)
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			r.Close(ctx)
			return nil, err
		}
	}
	return r, nil
}

func (c *Cluster) openReader(ctx context.Context, table string) (*pgx.Conn, int, error) {
	conn, err := c.Connect(ctx)
	if err != nil {
		return nil, 0, err
	}
	// A parallel scan would split the pages among workers; this backend
	// must map every page itself.
	if _, err := conn.Exec(ctx, "SET max_parallel_workers_per_gather = 0"); err != nil {
		conn.Close(ctx)
		return nil, 0, err
	}
	var pid int
	var n int64
	q := fmt.Sprintf("SELECT pg_backend_pid(), (SELECT count(*) FROM %s)", pgx.Identifier{table}.Sanitize())
	if err := conn.QueryRow(ctx, q).Scan(&pid, &n); err != nil {
		conn.Close(ctx)
		return nil, 0, fmt.Errorf("read table %s: %w", table, err)
	}
	return conn, pid, nil
}
