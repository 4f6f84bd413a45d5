package postgres_test

import (
	"context"
	"github.com/dbmem/dbmem/internal/measure"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
)

func fixture(name string) string { return filepath.Join("..", "..", "testdata", "fixtures", name) }

func TestDiscoverFixtureWithoutConnection(t *testing.T) {
	dir := fixture("pg15-hugepages-off")
	ins, gaps, err := postgres.Discover(context.Background(), capture.TreeFS(dir), postgres.Options{})
	if err != nil || len(gaps) != 0 {
		t.Fatal(err, gaps)
	}
	if len(ins) != 1 {
		t.Fatalf("%d instances, want 1", len(ins))
	}
	in := ins[0]
	if in.Connected || !strings.Contains(in.Connection, "not connected") {
		t.Errorf("connection %q", in.Connection)
	}
	// From postgresql.conf as written by the test cluster, and PG_VERSION.
	if b, _ := in.Settings.Bytes("shared_buffers"); b != 1280<<20 || in.Settings["shared_buffers"].Source != postgres.FromConfigFile {
		t.Errorf("shared_buffers from file: %+v", in.Settings["shared_buffers"])
	}
	if in.Major != 15 || in.Port == 0 || in.SocketDir == "" {
		t.Errorf("instance %+v", in)
	}
	// Without pg_stat_activity, roles come from the titles.
	if n := len(in.ByRole(postgres.RoleClient)); n != 10 {
		t.Errorf("%d client backends from titles, want 10", n)
	}
	if len(in.ByRole(postgres.RoleCheckpointer)) != 1 || len(in.ByRole(postgres.RolePostmaster)) != 1 {
		t.Error("aux roles from titles")
	}
	if p, ok := in.Process(in.PostmasterPID); !ok || p.Role != postgres.RolePostmaster {
		t.Errorf("Process(postmaster %d) = %+v, %v", in.PostmasterPID, p.Title, ok)
	}
	if _, ok := in.Process(-1); ok {
		t.Error("Process(-1) found a process")
	}
}

func TestDiscoverFixtureWithRecordedSettings(t *testing.T) {
	dir := fixture("pg15-hugepages-on")
	ins, _, err := postgres.Discover(context.Background(), capture.TreeFS(dir),
		postgres.Options{Live: capture.TreeLive{Dir: dir}, Method: measure.Smaps})
	if err != nil || len(ins) != 1 {
		t.Fatal(err, len(ins))
	}
	in := ins[0]
	if !in.Connected || in.Settings.String("shared_memory_size_in_huge_pages") != "666" {
		t.Errorf("recorded settings not used: %q", in.Settings.String("shared_memory_size_in_huge_pages"))
	}
	if in.Shared == nil || !in.Shared.Hugetlb || in.Shared.SizeBytes != 666*2<<20 {
		t.Errorf("shared segment %+v", in.Shared)
	}
	s := postgres.Summarize(in)
	if !s.PrivateExact || s.ClientBackends != 10 || s.ClientMedianBytes == nil || *s.ClientMedianBytes < 1<<20 || *s.ClientMedianBytes > 64<<20 || s.PrivateBytes == nil {
		t.Errorf("summary %+v", s)
	}
}

func TestConnectorFailsClearly(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"shared_buffers": "32MB"})
	in := &postgres.Instance{PostmasterPID: c.PID, Port: c.Port, SocketDir: c.SocketDir}
	_, err := postgres.Connector{Options: postgres.ConnOptions{User: "nobody_here"}}.Live(context.Background(), in)
	if err == nil || !strings.Contains(err.Error(), "nobody_here") || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("error %v, want one naming the user and the server's reason", err)
	}
	l, err := postgres.Connector{Options: postgres.ConnOptions{User: "postgres"}}.Live(context.Background(), in)
	if err != nil || l.Major < 10 || l.Settings.String("shared_buffers") != "32MB" || len(l.Activity) == 0 {
		t.Errorf("live %+v %v", l, err)
	}
	_, err = postgres.Connector{Options: postgres.ConnOptions{Port: c.Port + 1}}.Live(context.Background(), in)
	if err == nil || !strings.Contains(err.Error(), "--pg-port") {
		t.Errorf("port filter: %v", err)
	}
}
