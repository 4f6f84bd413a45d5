package watch

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

func liveSampler() *sampler.Sampler {
	return &sampler.Sampler{FS: linux.DefaultFS(), Live: postgres.Connector{Options: postgres.ConnOptions{User: "postgres"}}}
}

func instanceOf(t testing.TB, s *sampler.Sample, c *pgcluster.Cluster) *postgres.Instance {
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
	first, err := s.Sample(ctx, sampler.Status)
	if err != nil {
		t.Fatal(err)
	}
	if first.Mode != sampler.Discover {
		t.Fatalf("first sample %v, want discover", first.Mode)
	}
	conn := pgtest.Connect(t, c)
	var pid int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	// Other clusters on this machine come and go and would turn a Status
	// sample into a rediscovery; rebuild from the first discovery directly.
	procs, _, err := s.ReadProcesses(ctx, s.FS)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := sampler.Rebuild(s.FS, first.Snapshot, procs, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	second := &sampler.Sample{Mode: sampler.Status, Snapshot: snap, Processes: procs, Cost: first.Cost}
	in := instanceOf(t, second, c)
	if p, ok := in.Process(pid); !ok || p.Role != postgres.RoleClient {
		t.Fatalf("rebuilt from a status read: new backend %d found %v as %q, want a client backend", pid, ok, p.Role)
	}
	for _, rp := range r.PIDs {
		p, ok := in.Process(rp)
		want := statusField(t, rp, "VmPTE")
		if !ok || p.Role != postgres.RoleClient || p.Status.VmPTEBytes == nil || *p.Status.VmPTEBytes == 0 || *p.Status.VmPTEBytes > want*2 || want > *p.Status.VmPTEBytes*2 {
			t.Errorf("reader %d: found %v role %q VmPTE %v, /proc now says %d", rp, ok, p.Role, p.Status.VmPTEBytes, want)
		}
	}
	if !in.Connected || in.Settings.String("max_connections") != "20" || second.Cost.Wall <= 0 || second.Cost.CPU < 0 {
		t.Errorf("connected %v, max_connections %q, cost %v: settings must come from the discovery", in.Connected, in.Settings.String("max_connections"), second.Cost)
	}
	third, err := s.Sample(ctx, sampler.Smaps)
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

// lingering is dbmem's connector whose session stays open after it read the
// server, as a backend does for a moment after its client closed (longer on
// a loaded host): the watch must not count it as a connection. The session
// it names is one it holds open; the connector's own session, which it does
// not name, is waited for until its backend has exited.
type lingering struct {
	t     *testing.T
	c     *pgcluster.Cluster
	pids  []int
	conns []*pgx.Conn
}

func (l *lingering) Live(ctx context.Context, in *postgres.Instance) (postgres.Live, error) {
	live, err := postgres.Connector{Options: postgres.ConnOptions{User: "postgres"}}.Live(ctx, in)
	if err != nil || in.PostmasterPID != l.c.PID {
		return live, err
	}
	waitExited(l.t, live.SessionPID)
	held := pgtest.Connect(l.t, l.c)
	if err := held.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&live.SessionPID); err != nil {
		return live, err
	}
	l.pids = append(l.pids, live.SessionPID)
	l.conns = append(l.conns, held)
	return live, nil
}

// waitExited waits, polling for up to 2 minutes, until pid has exited and
// been reaped (its /proc directory is gone).
func waitExited(t *testing.T, pid int) {
	t.Helper()
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("backend %d is still in /proc 2 minutes after its client closed", pid)
		}
	}
}

func clientCount(in *postgres.Instance) int {
	n := 0
	for _, p := range in.Processes {
		if p.Role == postgres.RoleClient {
			n++
		}
	}
	return n
}

func TestOwnSessionIsNotAConnection(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"shared_buffers": "128MB", "max_connections": "20"})
	pgtest.Readers(t, c, 2, 8<<20)
	l := &lingering{t: t, c: c}
	s, ctx := &sampler.Sampler{FS: linux.DefaultFS(), Live: l}, context.Background()
	if _, err := s.Sample(ctx, sampler.Discover); err != nil {
		t.Fatal(err)
	}
	second, err := s.Sample(ctx, sampler.Discover) // lists children while the first session lingers
	if err != nil {
		t.Fatal(err)
	}
	if n := clientCount(instanceOf(t, second, c)); n != 2 || len(l.pids) != 2 {
		t.Errorf("second discovery: %d client backends (want the 2 readers), sessions %v", n, l.pids)
	}
	procs, _, err := s.ReadProcesses(ctx, s.FS)
	if err != nil {
		t.Fatal(err)
	}
	skip := s.LiveSessions(procs)
	if len(skip) != 2 || !skip[l.pids[0]] || !skip[l.pids[1]] {
		t.Fatalf("live sessions %v, want both of %v", skip, l.pids)
	}
	for _, tc := range []struct {
		skip map[int]bool
		want int
	}{{skip, 2}, {nil, 4}} { // without skipping, the lingering sessions count
		snap, err := sampler.Rebuild(s.FS, second.Snapshot, procs, tc.skip, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if n := clientCount(instanceOf(t, &sampler.Sample{Snapshot: snap}, c)); n != tc.want {
			t.Errorf("status rebuild skipping %v: %d client backends, want %d", tc.skip, n, tc.want)
		}
	}
	// A session that has exited is forgotten (its PID may be reused).
	l.conns[0].Close(ctx)
	waitExited(t, l.pids[0])
	if procs, _, err = s.ReadProcesses(ctx, s.FS); err != nil {
		t.Fatal(err)
	}
	if skip := s.LiveSessions(procs); len(skip) != 1 || !skip[l.pids[1]] {
		t.Errorf("after session %d exited: live sessions %v, want only %d", l.pids[0], skip, l.pids[1])
	}
}
