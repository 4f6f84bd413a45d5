package pgcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// initdb runs PostgreSQL with huge_pages=try (its default, before any
// setting of ours is in postgresql.conf): its bootstrap, single-user and
// --check runs take free huge pages of the host (up to 24 MiB held, more
// reserved, measured), which a test holding the kernel-settings lock has
// grown the pool for and is about to use. With InitdbWithoutHugePages,
// initdb runs in a cgroup v2 group that may reserve no huge page: its
// mmap(MAP_HUGETLB) fails and PostgreSQL falls back to normal pages, as on
// a host without huge pages.

// unifiedRoots are where a cgroup v2 hierarchy may be mounted.
var unifiedRoots = []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup"}

var noHugeSeq atomic.Int64

// noHugeGroup is a cgroup v2 group that may reserve and use no huge page.
type noHugeGroup struct {
	dir string
	fd  int
	// enabled is the subtree_control file where this process turned the
	// hugetlb controller on ("" when it was on already): it is turned off
	// again when the last such group is removed, leaving the host as found.
	enabled string
}

// enabledBy counts this process's groups under a root where it enabled
// the hugetlb controller.
var enabledBy struct {
	sync.Mutex
	n map[string]int
}

// newNoHugeGroup makes the group, or returns nil where it cannot be made
// (not root, no cgroup v2 with the hugetlb controller, a kernel without
// reservation limits: a usage limit alone would kill PostgreSQL with
// SIGBUS at its first touch instead of making it fall back).
func newNoHugeGroup(want bool) *noHugeGroup {
	if !want {
		return nil
	}
	g := enterHugetlbRoot()
	if g == nil {
		return nil
	}
	if err := os.Mkdir(g.dir, 0o755); err != nil {
		g.remove()
		return nil
	}
	if !g.limitAll() {
		g.remove()
		return nil
	}
	fd, err := syscall.Open(g.dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		g.remove()
		return nil
	}
	g.fd = fd
	return g
}

// enterHugetlbRoot names a new group under a root with the hugetlb
// controller, counting it when this process enabled the controller there.
func enterHugetlbRoot() *noHugeGroup {
	enabledBy.Lock()
	defer enabledBy.Unlock()
	root, enabled := hugetlbRoot()
	if root == "" {
		return nil
	}
	g := &noHugeGroup{dir: filepath.Join(root, fmt.Sprintf("dbmem-initdb-%d-%d", os.Getpid(), noHugeSeq.Add(1))), fd: -1}
	if enabled || enabledBy.n[root] > 0 {
		g.enabled = filepath.Join(root, "cgroup.subtree_control")
		if enabledBy.n == nil {
			enabledBy.n = map[string]int{}
		}
		enabledBy.n[root]++
	}
	return g
}

// hugetlbRoot returns a cgroup v2 root whose children get the hugetlb
// controller, enabling it there when it is available but not enabled
// (enabled reports that it did).
func hugetlbRoot() (root string, enabled bool) {
	for _, root := range unifiedRoots {
		avail, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
		if err != nil || !hasWord(string(avail), "hugetlb") {
			continue
		}
		sub := filepath.Join(root, "cgroup.subtree_control")
		if on, err := os.ReadFile(sub); err == nil && hasWord(string(on), "hugetlb") {
			return root, false
		}
		if os.WriteFile(sub, []byte("+hugetlb"), 0) == nil {
			return root, true
		}
	}
	return "", false
}

// release turns the hugetlb controller off again when this process turned
// it on and this was its last group there.
func (g *noHugeGroup) release() {
	if g.enabled == "" {
		return
	}
	root := filepath.Dir(g.enabled)
	if enabledBy.n[root]--; enabledBy.n[root] == 0 {
		os.WriteFile(g.enabled, []byte("-hugetlb"), 0)
	}
	g.enabled = ""
}

func hasWord(s, w string) bool { return slices.Contains(strings.Fields(s), w) }

// limitAll sets every page size's reservation and usage limits to 0; it
// reports false when a size has no reservation limit.
func (g *noHugeGroup) limitAll() bool {
	usage, _ := filepath.Glob(filepath.Join(g.dir, "hugetlb.*.max"))
	n := 0
	for _, u := range usage {
		if strings.HasSuffix(u, ".rsvd.max") {
			continue
		}
		rsvd := strings.TrimSuffix(u, ".max") + ".rsvd.max"
		if os.WriteFile(rsvd, []byte("0"), 0) != nil || os.WriteFile(u, []byte("0"), 0) != nil {
			return false
		}
		n++
	}
	return n > 0
}

// remove deletes the group once the processes run in it are gone.
func (g *noHugeGroup) remove() {
	if g.fd >= 0 {
		syscall.Close(g.fd)
	}
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		err := syscall.Rmdir(g.dir)
		if err == nil || err == syscall.ENOENT || time.Now().After(end) {
			break
		}
	}
	enabledBy.Lock()
	defer enabledBy.Unlock()
	g.release()
}
