package watch

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
)

func liveSampler() *Sampler {
	return &Sampler{FS: linux.DefaultFS(), Live: postgres.Connector{Options: postgres.ConnOptions{User: "postgres"}}}
}

func instanceOf(t *testing.T, s *Sample, c *pgcluster.Cluster) *postgres.Instance {
	t.Helper()
	for _, in := range s.Snapshot.Postgres {
		if in.PostmasterPID == c.PID {
			return in
		}
	}
	t.Fatalf("%s sample did not find the test instance (postmaster %d)", s.Mode, c.PID)
	return nil
}

// statusField reads one "Key: N kB" line of /proc/PID/status in bytes.
func statusField(t *testing.T, pid int, key string) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			n, _ := strconv.ParseUint(strings.Fields(v)[0], 10, 64)
			return n << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", key, pid)
	return 0
}

func TestLiveStatusSeesNewConnection(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"shared_buffers": "128MB", "max_connections": "20"})
	r := pgtest.Readers(t, c, 3, 32<<20)
	s, ctx := liveSampler(), context.Background()
	first, err := s.Sample(ctx, Status)
	if err != nil {
		t.Fatal(err)
	}
	if first.Mode != Discover {
		t.Fatalf("first sample %v, want discover", first.Mode)
	}
	conn := pgtest.Connect(t, c)
	var pid int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	// Other clusters on this machine come and go and would turn a Status
	// sample into a rediscovery; rebuild from the first discovery directly.
	procs, _, err := s.readProcesses()
	if err != nil {
		t.Fatal(err)
	}
	snap, err := rebuild(s.FS, first.Snapshot, procs, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	second := &Sample{Mode: Status, Snapshot: snap, Processes: procs, Cost: first.Cost}
	in := instanceOf(t, second, c)
	if p, ok := in.Process(pid); !ok || p.Role != postgres.RoleClient {
		t.Fatalf("rebuilt from a status read: new backend %d found %v as %q, want a client backend", pid, ok, p.Role)
	}
	for _, rp := range r.PIDs {
		p, ok := in.Process(rp)
		want := statusField(t, rp, "VmPTE")
		if !ok || p.Role != postgres.RoleClient || p.Status.VmPTEBytes == 0 || p.Status.VmPTEBytes > want*2 || want > p.Status.VmPTEBytes*2 {
			t.Errorf("reader %d: found %v role %q VmPTE %d, /proc now says %d", rp, ok, p.Role, p.Status.VmPTEBytes, want)
		}
	}
	if !in.Connected || in.Settings.String("max_connections") != "20" || second.Cost.Wall <= 0 || second.Cost.CPU < 0 {
		t.Errorf("connected %v, max_connections %q, cost %v: settings must come from the discovery", in.Connected, in.Settings.String("max_connections"), second.Cost)
	}
	third, err := s.Sample(ctx, Smaps)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := instanceOf(t, third, c).Process(r.PIDs[0]); !third.Snapshot.Pss || p.Rollup == nil || p.Rollup.PssAnonBytes == nil {
		t.Errorf("smaps sample: Pss %v, reader rollup %v", third.Snapshot.Pss, p.Rollup)
	}
}

func TestLiveRunPrintsTicks(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"shared_buffers": "128MB", "max_connections": "20"})
	pgtest.Readers(t, c, 2, 16<<20)
	var out bytes.Buffer
	err := Run(context.Background(), liveSampler(), Options{Interval: 200 * time.Millisecond, SmapsEvery: time.Minute, Count: 3, Out: &out, Top: 3})
	if err != nil {
		t.Fatal(err)
	}
	b := blocks(out.String())
	// Tick 3 is a rediscovery when another cluster on this machine started
	// or stopped meanwhile.
	if len(b) != 3 || !strings.Contains(b[1], "tick 2: smaps") ||
		!(strings.Contains(b[2], "tick 3: status") || strings.Contains(b[2], "tick 3: discover")) {
		t.Fatalf("want 3 blocks (discover, smaps, status):\n%s", out.String())
	}
	port := strconv.Itoa(c.Port)
	found := false
	for _, l := range strings.Split(b[2], "\n") {
		f := strings.Fields(l)
		if len(f) > 3 && f[0] == port && f[1] == c.DataDir {
			found = f[3] == "2"
		}
	}
	if !found {
		t.Errorf("tick 3 has no row for port %s with 2 connections:\n%s", port, b[2])
	}
}
