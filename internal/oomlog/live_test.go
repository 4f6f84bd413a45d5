package oomlog

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/oomlog/memcgtest"
)

// TestRootLiveMemcgOOMKill (root only) starts a memory hog in a 64 MiB
// memory cgroup, lets the kernel kill it, and parses what dmesg printed.
// With -record it stores the capture under testdata.
func TestRootLiveMemcgOOMKill(t *testing.T) {
	const limit = 64 << 20
	g := memcgtest.New(t, limit)
	mark, err := memcgtest.Mark("hog")
	if err != nil {
		t.Fatal(err)
	}
	pid := runHog(t, g)
	text, err := mark.WaitFor("Killed process "+strconv.Itoa(pid)+" ", 2*time.Minute, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	events, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 {
		t.Fatalf("want 1 event in the live capture, got %d:\n%s", len(events), text)
	}
	checkLiveEvent(t, events[0], pid, g)
	if *record {
		recordHog(t, mark, g)
	}
}

// runHog starts the hog in the cgroup, releases it and waits for its death.
func runHog(t *testing.T, g *memcgtest.Group) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), hogEnv+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if err := g.Add(pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	in.Write([]byte{1})
	err = cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("hog %d was not killed by SIGKILL: %v", pid, err)
	}
	return pid
}

func checkLiveEvent(t *testing.T, e Event, pid int, g *memcgtest.Group) {
	t.Helper()
	if e.Incomplete {
		t.Errorf("live event incomplete: %s", e.IncompleteReason)
	}
	if e.Victim == nil || e.Victim.PID != pid {
		t.Fatalf("victim = %+v, want pid %d", e.Victim, pid)
	}
	if e.Constraint != ConstraintMemcg || e.ConstraintInferred {
		t.Errorf("constraint = %q (inferred %v), want printed memcg", e.Constraint, e.ConstraintInferred)
	}
	if e.OOMMemcg != g.Path || e.TaskMemcg != g.Path {
		t.Errorf("oom_memcg %q task_memcg %q, want %q", e.OOMMemcg, e.TaskMemcg, g.Path)
	}
	if e.Memcg == nil || e.Memcg.LimitBytes != g.LimitBytes {
		t.Errorf("memcg usage = %+v, want limit %d", e.Memcg, g.LimitBytes)
	}
	// Pages the hog touched before it was moved stay charged to the old
	// cgroup (v1 does not move charges), so anon-rss may pass the limit a little.
	if anon := vu(e.Victim.AnonRSSBytes); anon < int64(g.LimitBytes/2) || anon > int64(g.LimitBytes+16<<20) {
		t.Errorf("victim anon-rss %d, want about the limit %d", anon, g.LimitBytes)
	}
	row, ok := e.VictimTask()
	if !ok || row.RSSBytes == 0 || vu(row.PgtablesBytes) <= 0 {
		t.Errorf("victim's task row = %+v (found %v), want rss and page tables", row, ok)
	}
	// The trigger's PID is the allocating thread's id: one of the hog's
	// Go runtime threads, not necessarily its main thread.
	if e.Trigger == nil || e.Trigger.Name != e.Victim.Name || e.Trigger.PID == nil {
		t.Errorf("trigger = %+v, want a thread of the hog %q", e.Trigger, e.Victim.Name)
	}
}

// recordHog writes the capture in the forms dmesg prints.
func recordHog(t *testing.T, mark memcgtest.Marker, g *memcgtest.Group) {
	t.Helper()
	kind := "v1"
	if g.V2 {
		kind = "v2"
	}
	base := "memcg-" + kind + "-hog-kernel-" + kernelRelease(t)
	for suffix, args := range map[string][]string{
		"dmesg.txt":     nil,
		"dmesg-T.txt":   {"-T"},
		"dmesg-iso.txt": {"--time-format", "iso"},
	} {
		text, err := mark.Since(args...)
		if err != nil {
			t.Fatal(err)
		}
		writeFixture(t, base+"-"+suffix, text)
	}
}

func kernelRelease(t *testing.T) string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func writeFixture(t *testing.T, name, text string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s", p)
}
