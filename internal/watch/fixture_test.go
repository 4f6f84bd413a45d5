package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// The fixtures were recorded on kernel 6.18, PostgreSQL 15.20 (see their
// README): one instance on port 46143 with 10 client backends.
const fixturePort = "46143"

func fixture(t testing.TB, name string) *sampler.Sampler {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "fixtures", name)
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	return &sampler.Sampler{FS: capture.TreeFS(dir), Live: capture.TreeLive{Dir: dir}, Now: func() time.Time { at = at.Add(2 * time.Second); return at }}
}

// blocks splits non-terminal output into one block per tick.
func blocks(out string) []string {
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n\n")
}

func TestRunFixtureBlocks(t *testing.T) {
	var out bytes.Buffer
	s := fixture(t, "pg15-hugepages-off")
	err := Run(context.Background(), s, Options{Interval: time.Millisecond, SmapsEvery: time.Hour, Count: 3, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	b := blocks(out.String())
	if len(b) != 3 {
		t.Fatalf("%d blocks, want one per tick (3):\n%s", len(b), out.String())
	}
	for i, mode := range []string{"tick 1: discover", "tick 2: smaps", "tick 3: status"} {
		if !strings.Contains(b[i], mode) {
			t.Errorf("block %d lacks %q:\n%s", i+1, mode, b[i])
		}
	}
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("escape sequences without colour or screen:\n%q", out.String())
	}
	// Tick 1 has no Pss yet: estimates are marked; tick 3 shows the exact
	// figure from tick 2, whatever its age.
	row := func(block string) string {
		for _, l := range strings.Split(block, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), fixturePort+" ") {
				return l
			}
		}
		t.Fatalf("no instance row for port %s in:\n%s", fixturePort, block)
		return ""
	}
	if f := strings.Fields(row(b[0])); f[3] != "10" || !strings.HasPrefix(f[5], "~") || f[6] != "-" {
		t.Errorf("tick 1 row %q: want 10 connections, an estimate and no Pss yet", row(b[0]))
	}
	if f := strings.Fields(row(b[2])); f[6] != "138M" || !strings.HasSuffix(f[7], "s") {
		t.Errorf("tick 3 row %q: want the exact 138M from the smaps tick and its age", row(b[2]))
	}
}

func TestRunFixtureColorAndScreen(t *testing.T) {
	var out bytes.Buffer
	err := Run(context.Background(), fixture(t, "pg15-hugepages-on"), Options{
		Interval: time.Millisecond, Count: 2, Out: &out, Screen: true,
		Render: RenderOptions{Color: true}, Size: func() (int, int) { return 60, 12 },
	})
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"\x1b[?1049h", "\x1b[H", "\x1b[1m", "\x1b[J", "\x1b[?1049l"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen output lacks %q", want)
		}
	}
	frame := s[strings.LastIndex(s, "\x1b[H"):]
	if n := strings.Count(frame, "\r\n"); n != 11 {
		t.Errorf("last frame has %d lines, want 11 (height 12 minus one)", n)
	}
	for _, l := range strings.Split(frame, "\r\n") {
		plain := stripANSI(l)
		if len([]rune(plain)) > 60 {
			t.Errorf("line wider than 60: %q", plain)
		}
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && !(s[i] >= 'A' && s[i] <= 'Z' || s[i] >= 'a' && s[i] <= 'z') {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestRunFixtureJSON(t *testing.T) {
	var out bytes.Buffer
	err := Run(context.Background(), fixture(t, "pg15-hugepages-on"), Options{Interval: time.Millisecond, SmapsEvery: time.Hour, Count: 2, Out: &out, JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d JSON lines, want 2", len(lines))
	}
	var f Frame
	if err := json.Unmarshal([]byte(lines[1]), &f); err != nil {
		t.Fatal(err)
	}
	if f.Schema != FrameSchema || f.Mode != "smaps" || len(f.Instances) != 1 {
		t.Fatalf("frame %+v: want schema %s, a smaps tick, one instance", f, FrameSchema)
	}
	in := f.Instances[0]
	if in.SharedPageBytes == nil || *in.SharedPageBytes != 2<<20 || !in.PrivateExact || in.PrivateBytes == nil || in.PssPrivateBytes == nil ||
		*in.PssPrivateBytes != *in.PrivateBytes || in.EstimateBytes == nil || *in.EstimateBytes < *in.PrivateBytes {
		t.Errorf("instance %+v: want 2 MiB pages, an exact private cost equal to its Pss figure and an estimate above it", in)
	}
}

// A Status sample after discovery keeps settings but reads processes anew.
func TestStatusSampleRebuilds(t *testing.T) {
	s := fixture(t, "pg15-hugepages-off")
	ctx := context.Background()
	first, err := s.Sample(ctx, sampler.Status)
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Sample(ctx, sampler.Status)
	if err != nil {
		t.Fatal(err)
	}
	if first.Mode != sampler.Discover || second.Mode != sampler.Status {
		t.Fatalf("modes %v, %v: want discover (nothing known yet), then status", first.Mode, second.Mode)
	}
	a, b := first.Snapshot.Postgres[0], second.Snapshot.Postgres[0]
	if len(a.Processes) != len(b.Processes) || !b.Connected || b.Settings.String("max_connections") != "40" {
		t.Errorf("rebuilt instance: %d processes (want %d), connected %v, max_connections %q",
			len(b.Processes), len(a.Processes), b.Connected, b.Settings.String("max_connections"))
	}
	if len(b.ByRole(postgres.RoleClient)) != 10 || second.Snapshot.Pss {
		t.Errorf("rebuilt: %d client backends (want 10), Pss %v (want false)", len(b.ByRole(postgres.RoleClient)), second.Snapshot.Pss)
	}
	// getrusage counts CPU time in scheduler ticks (4 ms at HZ=250), so a
	// sample of a few milliseconds may honestly cost 0 CPU; wall time is
	// always measured.
	if len(second.Processes) != len(first.Processes) || second.Cost.Wall <= 0 || second.Cost.CPU < 0 {
		t.Errorf("host processes %d vs %d, cost %v", len(second.Processes), len(first.Processes), second.Cost)
	}
}

func TestTopologyChanged(t *testing.T) {
	s := fixture(t, "pg15-hugepages-off")
	smp, err := s.Sample(context.Background(), sampler.Status)
	if err != nil {
		t.Fatal(err)
	}
	if sampler.TopologyChanged(smp.Snapshot, smp.Processes) {
		t.Error("same processes: want no change")
	}
	var without = smp.Processes[:0:0]
	pm := smp.Snapshot.Postgres[0].PostmasterPID
	for _, p := range smp.Processes {
		if p.PID != pm {
			without = append(without, p)
		}
	}
	restarted := append([]postgres.Proc(nil), smp.Snapshot.Postgres[0].Processes...)
	restarted[0].StartTicks++
	if !sampler.TopologyChanged(smp.Snapshot, without) {
		t.Error("postmaster gone: want a change")
	}
	moved := append(without[:0:0], without...)
	for _, p := range restarted {
		if p.PID == pm {
			moved = append(moved, p.Process)
		}
	}
	if !sampler.TopologyChanged(smp.Snapshot, moved) {
		t.Error("postmaster restarted (new start time): want a change")
	}
}
