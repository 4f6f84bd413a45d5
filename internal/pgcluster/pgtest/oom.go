package pgtest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/oomlog/memcgtest"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/jackc/pgx/v5"
)

// BigSort needs about 1 GB of sort memory with work_mem 2GB: far more than
// a small memory cgroup or address-space limit allows.
const BigSort = "SELECT sum(i) FROM (SELECT i FROM generate_series(1, 20000000) i ORDER BY i DESC) s"

// Backend opens a connection (closed at cleanup) and returns it with the
// PID of the backend serving it.
func Backend(t testing.TB, c *pgcluster.Cluster) (*pgx.Conn, int) {
	t.Helper()
	conn := Connect(t, c)
	var pid int
	if err := conn.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return conn, pid
}

// RunBigSort sets work_mem to 2GB and runs BigSort on conn.
func RunBigSort(conn *pgx.Conn) error {
	ctx := context.Background()
	conn.Exec(ctx, "SET work_mem = '2GB'")
	_, err := conn.Exec(ctx, BigSort)
	return err
}

// OOMKill is a backend the kernel's OOM killer killed for a test.
type OOMKill struct {
	PID int
	// Mark is the kernel log marker written before the kill; Kernel what
	// the kernel logged after it, the kill report included.
	Mark   memcgtest.Marker
	Kernel string
}

// OOMKillBackend moves a new backend of c into the memory cgroup g, runs
// BigSort in it and waits until the kernel logs the backend's kill. Create
// g before starting c, so that g is removed after the server stops.
func OOMKillBackend(t testing.TB, g *memcgtest.Group, c *pgcluster.Cluster, label string) OOMKill {
	t.Helper()
	conn, pid := Backend(t, c)
	mark, err := memcgtest.Mark(label)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Add(pid); err != nil {
		t.Fatal(err)
	}
	if err := RunBigSort(conn); err == nil {
		t.Fatalf("the sort succeeded inside a %d MiB cgroup", g.LimitBytes>>20)
	}
	text, err := mark.WaitFor("Killed process "+strconv.Itoa(pid)+" ", 2*time.Minute, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	return OOMKill{PID: pid, Mark: mark, Kernel: text}
}
