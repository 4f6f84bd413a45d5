package pgcluster_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/kerneltest"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

// TestInitdbTakesNoHugePages grows the huge page pool (so free pages are
// there to take) and creates a cluster while watching initdb's PostgreSQL
// runs (--boot, --single, --check, huge_pages=try): none may hold a huge
// page. Without the no-huge-page cgroup they held up to 24 MiB here, and
// reserved more, taking pages another test had grown the pool for.
func TestInitdbTakesNoHugePages(t *testing.T) {
	kerneltest.AddHugePages(t, 200)
	before := subtreeControls()
	stop, done := make(chan struct{}), make(chan initdbRuns)
	go func() { done <- watchInitdb(stop) }()
	pgtest.Create(t, nil)
	close(stop)
	runs := <-done
	t.Logf("initdb's runs: %+v", runs)
	if after := subtreeControls(); after != before {
		t.Errorf("the cgroup v2 controllers enabled for children were %q before and are %q after: the host is not left as found", before, after)
	}
	if runs.seen == 0 {
		t.Skip("initdb's runs ended before they could be seen")
	}
	if !hugetlbV2() {
		t.Skip("no cgroup v2 with the hugetlb controller here: initdb runs with the host's huge pages")
	}
	if runs.maxHugeKB > 0 || runs.outside > 0 {
		t.Errorf("initdb's runs: %+v; want none holding huge pages, all in the no-huge-page cgroup", runs)
	}
}

type initdbRuns struct{ seen, inGroup, outside, maxHugeKB int }

// watchInitdb polls /proc until stop for PostgreSQL's initdb runs.
func watchInitdb(stop <-chan struct{}) initdbRuns {
	var r initdbRuns
	for {
		select {
		case <-stop:
			return r
		default:
		}
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			r.add(d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (r *initdbRuns) add(dir string) {
	cmd, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
	args := strings.Split(string(cmd), "\x00")
	if len(args) < 2 || filepath.Base(args[0]) != "postgres" || (args[1] != "--boot" && args[1] != "--single" && args[1] != "--check") {
		return
	}
	if !descendsFromUs(dir) {
		return // another program's initdb
	}
	r.seen++
	cg, _ := os.ReadFile(filepath.Join(dir, "cgroup"))
	if !strings.Contains(string(cg), "/dbmem-initdb-") {
		r.outside++
	} else {
		r.inGroup++
	}
	st, _ := os.ReadFile(filepath.Join(dir, "status"))
	for _, l := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(l, "HugetlbPages:"); ok {
			kb, _ := strconv.Atoi(strings.Fields(v)[0])
			r.maxHugeKB = max(r.maxHugeKB, kb)
		}
	}
}

// descendsFromUs reports whether the process at dir is a descendant of
// this test (initdb, maybe a shell, then postgres).
func descendsFromUs(dir string) bool {
	pid := filepath.Base(dir)
	for range 5 {
		st, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
		i := strings.LastIndexByte(string(st), ')')
		if err != nil || i < 0 {
			return false
		}
		f := strings.Fields(string(st[i+1:]))
		if len(f) < 2 {
			return false
		}
		if pid = f[1]; pid == strconv.Itoa(os.Getpid()) {
			return true
		}
	}
	return false
}

// hugetlbV2 reports whether a cgroup v2 hierarchy offers the hugetlb
// controller (read independently of the code under test).
// subtreeControls are the controllers the cgroup v2 roots enable for their
// children.
func subtreeControls() string {
	var out []string
	for _, root := range []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup"} {
		b, _ := os.ReadFile(filepath.Join(root, "cgroup.subtree_control"))
		out = append(out, root+": "+strings.TrimSpace(string(b)))
	}
	return strings.Join(out, "; ")
}

func hugetlbV2() bool {
	for _, root := range []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup"} {
		if b, err := os.ReadFile(filepath.Join(root, "cgroup.controllers")); err == nil && strings.Contains(string(b), "hugetlb") {
			return true
		}
	}
	return false
}
