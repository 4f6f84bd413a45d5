package memcg

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// TestRootLiveGroup (root only) makes a 64 MiB group, moves a sleeping
// child into it, reads its counters, and removes it with the child still
// inside: the child goes back to the parent and the directory is gone.
func TestRootLiveGroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creating a memory cgroup needs root")
	}
	g, err := Create("/sys", fmt.Sprintf("dbmem-memcgtest-%d", os.Getpid()), 64<<20)
	if err != nil {
		t.Skipf("no memory cgroup here: %v", err)
	}
	t.Cleanup(func() { g.Remove(2 * time.Minute) })
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	if err := g.Add(child.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(g.Procs(), child.Process.Pid) {
		t.Errorf("procs %v lack the child %d", g.Procs(), child.Process.Pid)
	}
	s := g.Read()
	if s.OOMKills == nil || *s.OOMKills != 0 || s.PeakBytes == nil {
		t.Errorf("stats %+v: want 0 OOM kills and a peak on kernel 4.13+/5.19+", s)
	}
	if err := g.Remove(2 * time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(g.Dir); !os.IsNotExist(err) {
		t.Errorf("%s still there: %v", g.Dir, err)
	}
	if !slices.Contains(procs(g.ParentDir), child.Process.Pid) {
		t.Errorf("the child %d did not go back to %s", child.Process.Pid, g.ParentDir)
	}
}
