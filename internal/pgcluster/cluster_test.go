package pgcluster_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

func TestStartConnectStop(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"shared_buffers": "64MB"})
	if c.PID == 0 {
		t.Fatal("no postmaster PID after start")
	}
	cmd, err := os.ReadFile("/proc/" + strconv.Itoa(c.PID) + "/cmdline")
	if err != nil || !strings.Contains(string(cmd), c.DataDir) {
		t.Fatalf("PID %d is not our postmaster: %q %v", c.PID, cmd, err)
	}
	conn := pgtest.Connect(t, c)
	var sb string
	if err := conn.QueryRow(context.Background(), "SHOW shared_buffers").Scan(&sb); err != nil {
		t.Fatal(err)
	}
	if sb != "64MB" {
		t.Errorf("shared_buffers = %q, want 64MB", sb)
	}
	pid := c.PID
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if pgcluster.Alive(pid) {
		t.Errorf("postmaster %d still runs after Stop", pid)
	}
}

func TestReadersTouchTable(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"shared_buffers": "128MB"})
	r := pgtest.Readers(t, c, 3, 32<<20)
	if len(r.PIDs) != 3 {
		t.Fatalf("got %d readers", len(r.PIDs))
	}
	var size int64
	conn := pgtest.Connect(t, c)
	if err := conn.QueryRow(context.Background(), "SELECT pg_relation_size('big')").Scan(&size); err != nil {
		t.Fatal(err)
	}
	if size < 30<<20 || size > 36<<20 {
		t.Errorf("table size %d, want about 32 MiB", size)
	}
}
