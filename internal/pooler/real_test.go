package pooler_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/pooler/bouncertest"
)

// realBouncer starts a throwaway cluster and a PgBouncer in front of it:
// transaction pooling by default, a database in session mode, per-database
// pool_size, reserve_pool and max_db_connections, a database with one pool
// per client user, one pointing elsewhere, and an %include (relative: from
// PgBouncer's working directory) that sets reserve_pool_timeout.
func realBouncer(t *testing.T) (*pgcluster.Cluster, *bouncertest.Bouncer) {
	c := pgtest.Start(t, map[string]string{"max_connections": "40"})
	dest := fmt.Sprintf("host=%s port=%d dbname=postgres", c.SocketDir, c.Port)
	b := bouncertest.Start(t, bouncertest.Options{
		Databases: []string{
			"app = " + dest + " user=postgres pool_size=3 reserve_pool=2",
			"rep = " + dest + " user=postgres pool_mode=session pool_size=4 max_db_connections=2",
			"perclient = " + dest + " max_db_connections=6",
			"elsewhere = host=/nonexistent port=1 dbname=x",
		},
		Settings: []string{"pool_mode = transaction", "default_pool_size = 7", "%include extra.ini"},
		Files:    map[string]string{"extra.ini": "; included from pgbouncer.ini\nreserve_pool_timeout = 1\nmax_user_connections = 100\n"},
	})
	return c, b
}

// client connects to a PgBouncer database in the simple protocol (the
// only one transaction pooling keeps working for).
func client(t *testing.T, b *bouncertest.Bouncer, db string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d user=postgres dbname=%s sslmode=disable default_query_exec_mode=simple_protocol", b.Dir, b.Port, db))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect through pgbouncer to %s: %v\n%s", db, err, b.Log())
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func discover(t *testing.T) []*pooler.Pooler {
	t.Helper()
	found, gaps, err := pooler.Discover(context.Background(), linux.DefaultFS(), pooler.Options{Console: pooler.Connector{Helper: pooler.NewHelper()}})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gaps {
		t.Logf("gap: %s", g)
	}
	return found
}

func find(t *testing.T, found []*pooler.Pooler, pid int) *pooler.Pooler {
	t.Helper()
	for _, p := range found {
		if p.PID == pid {
			return p
		}
	}
	t.Fatalf("pgbouncer %d not found among %d poolers", pid, len(found))
	return nil
}

// TestRealPgBouncer: the files and the console of a real PgBouncer give
// the bound of 13 server connections (app 3 + reserve 2, rep min(4, 2),
// perclient max_db_connections 6); clients that hold transactions and
// sessions fill the pools, and SHOW POOLS counts exactly the backends
// PostgreSQL has, with the clients beyond the pools waiting.
func TestRealPgBouncer(t *testing.T) {
	c, b := realBouncer(t)
	p := find(t, discover(t), b.PID)
	if p.Refused || len(p.Problems) > 0 || p.PgBouncer == nil {
		t.Fatalf("configuration: refused %v, problems %v", p.Refused, p.Problems)
	}
	if len(p.Files) != 2 || !strings.HasSuffix(p.Files[1], "/extra.ini") {
		t.Errorf("files read %v, want pgbouncer.ini and the included extra.ini", p.Files)
	}
	if p.PgBouncer.ReservePoolTimeout.S != "1" || !strings.HasSuffix(p.PgBouncer.ReservePoolTimeout.From, "extra.ini:2") {
		t.Errorf("reserve_pool_timeout %+v, want 1 from extra.ini:2", p.PgBouncer.ReservePoolTimeout)
	}
	if p.Console == nil {
		t.Fatalf("console not read: %s", p.Connection)
	}
	target := pooler.Target{Port: c.Port, SocketDirs: []string{c.SocketDir}}
	l := pooler.ServerConnections([]*pooler.Pooler{p}, target)
	if !l.Known || l.Max != 13 || l.ByMode["transaction"] != 11 || l.ByMode["session"] != 2 {
		t.Fatalf("limit %d known %v by mode %v, want 13 known (transaction 11, session 2): %s; gaps %v", l.Max, l.Known, l.ByMode, l.Formula, l.Gaps)
	}
	ctx := context.Background()
	for i := 0; i < 5; i++ { // 3 from the pool, 2 from the reserve after reserve_pool_timeout
		if _, err := client(t, b, "app").Exec(ctx, "BEGIN; SELECT 1"); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 2; i++ {
		if _, err := client(t, b, "rep").Exec(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
	}
	waiting := []*pgx.Conn{client(t, b, "app"), client(t, b, "rep")}
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() }) // before the connections close
	for _, w := range waiting {
		wg.Add(1)
		go func() { defer wg.Done(); w.Exec(wctx, "SELECT 1") }() // queued: every server connection is taken
	}
	direct := pgtest.Connect(t, c)
	bouncertest.WaitFor(t, "7 server connections and 2 waiting clients", func() (bool, string) {
		l = pooler.ServerConnections([]*pooler.Pooler{find(t, discover(t), b.PID)}, target)
		var backends int
		direct.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()").Scan(&backends)
		m := l.Measured
		ok := m != nil && m.Servers == 7 && m.ClientsWaiting == 2 && backends == 7
		return ok, fmt.Sprintf("measured %+v, PostgreSQL backends %d", m, backends)
	})
	t.Logf("%s\n%s\nmeasured %+v\nevidence %q", p.Connection, l.Formula, *l.Measured, l.Evidence)
	if l.Measured.Servers > l.Max || !l.Measured.Complete {
		t.Errorf("measured %+v beyond the bound %d", l.Measured, l.Max)
	}
}
