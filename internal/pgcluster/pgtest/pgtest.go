package pgtest

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/kerneltest"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/jackc/pgx/v5"
)

// Start creates and starts a cluster with the given settings (for example
// "shared_buffers": "1536MB", "huge_pages": "on"). It is stopped and removed
// when the test ends.
func Start(t testing.TB, settings map[string]string) *pgcluster.Cluster {
	t.Helper()
	c := Create(t, settings)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start PostgreSQL: %v", err)
	}
	return c
}

// Create runs initdb but does not start the server; Remove runs at cleanup.
// huge_pages defaults to off: with PostgreSQL's default "try", a test server
// would take free huge pages that another test grew the pool for under the
// kernel-test lock; initdb runs where it can take none
// (pgcluster.Options.InitdbWithoutHugePages).
func Create(t testing.TB, settings map[string]string) *pgcluster.Cluster {
	t.Helper()
	if _, ok := settings["huge_pages"]; !ok {
		s := map[string]string{"huge_pages": "off"}
		for k, v := range settings {
			s[k] = v
		}
		settings = s
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := pgcluster.Create(ctx, pgcluster.Options{Settings: settings, InitdbWithoutHugePages: true})
	if err != nil {
		t.Fatalf("create PostgreSQL cluster: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Remove(); err != nil {
			t.Errorf("remove test cluster %s: %v", c.Dir, err)
		}
	})
	return c
}

// Connect opens a connection closed at cleanup.
func Connect(t testing.TB, c *pgcluster.Cluster) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := c.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

// Exec runs statements or fails the test.
func Exec(t testing.TB, c *pgcluster.Cluster, sqls ...string) {
	t.Helper()
	if err := c.Exec(context.Background(), sqls...); err != nil {
		t.Fatal(err)
	}
}

// Readers creates a table of size bytes, prewarms it into shared_buffers and
// opens n connections that have each read it; they close at cleanup.
func Readers(t testing.TB, c *pgcluster.Cluster, n int, size int64) *pgcluster.Readers {
	t.Helper()
	ctx := context.Background()
	if err := c.CreateTable(ctx, "big", size); err != nil {
		t.Fatal(err)
	}
	if err := c.Prewarm(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	r, err := c.OpenReaders(ctx, n, 2, "big")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(ctx) })
	return r
}

// HugePagesNeeded asks a created (not running) cluster how many huge pages
// its shared memory needs: `postgres -C shared_memory_size_in_huge_pages`
// (PostgreSQL 15+).
func HugePagesNeeded(t testing.TB, c *pgcluster.Cluster) int {
	t.Helper()
	out, err := c.Postgres(context.Background(), "-C", "shared_memory_size_in_huge_pages")
	if err != nil {
		t.Fatalf("ask PostgreSQL for its huge page need: %v", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || n <= 0 {
		t.Fatalf("postgres -C shared_memory_size_in_huge_pages printed %q", out)
	}
	return n
}

// StartWithHugePages creates a cluster with huge_pages=on, grows the huge page
// pool by exactly what it needs (restored at cleanup, after the server
// stops) and starts it. It returns the cluster and the pages added.
func StartWithHugePages(t testing.TB, settings map[string]string) (*pgcluster.Cluster, int) {
	t.Helper()
	s := map[string]string{"huge_pages": "on"}
	for k, v := range settings {
		s[k] = v
	}
	c := Create(t, s)
	n := HugePagesNeeded(t, c)
	kerneltest.AddHugePages(t, n)
	t.Cleanup(func() { c.Stop(context.Background()) }) // runs before the pool is restored
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start PostgreSQL with huge_pages=on and %d more huge pages: %v", n, err)
	}
	return c, n
}
