package pgtest

import (
	"context"
	"testing"
	"time"

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
func Create(t testing.TB, settings map[string]string) *pgcluster.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := pgcluster.Create(ctx, pgcluster.Options{Settings: settings})
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
