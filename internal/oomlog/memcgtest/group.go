package memcgtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Group is a memory cgroup made for one test.
type Group struct {
	// Dir is the cgroup's directory; Parent the directory it was made in.
	Dir, Parent string
	// Path is the cgroup path the kernel prints (oom_memcg=, task_memcg=).
	Path string
	// V2 is true on the unified hierarchy.
	V2 bool
	// LimitBytes is the memory limit that was set.
	LimitBytes uint64
}

// New creates a memory cgroup limited to limitBytes (swap included) below
// the test process's own memory cgroup. It skips the test when not root or
// when no memory controller is available.
func New(t testing.TB, limitBytes uint64) *Group {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("creating a memory cgroup needs root")
	}
	g, err := create(limitBytes)
	if err != nil {
		t.Skipf("no usable memory cgroup: %v", err)
	}
	t.Cleanup(func() {
		if err := g.remove(); err != nil {
			t.Errorf("remove test cgroup %s: %v", g.Dir, err)
		}
	})
	return g
}

func create(limit uint64) (*Group, error) {
	v2root, v2rel, v1root, v1rel, err := ownCgroups()
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("dbmem-oomtest-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6)
	if v2root != "" && hasController(v2root, "memory") {
		return createV2(filepath.Join(v2root, v2rel), v2rel, name, limit)
	}
	if v1root == "" {
		return nil, errors.New("neither cgroup v2 with the memory controller nor a v1 memory hierarchy is mounted")
	}
	return createV1(filepath.Join(v1root, v1rel), v1rel, name, limit)
}

// ownCgroups finds the mounts and this process's paths in them.
func ownCgroups() (v2root, v2rel, v1root, v1rel string, err error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", "", "", "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2rel = parts[2]
		case hasWord(parts[1], "memory"):
			v1rel = parts[2]
		}
	}
	for _, d := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		if _, err := os.Stat(filepath.Join(d, "cgroup.controllers")); err == nil {
			v2root = d
			break
		}
	}
	if v1rel != "" {
		v1root = "/sys/fs/cgroup/memory"
	}
	return v2root, v2rel, v1root, v1rel, nil
}

func hasWord(list, w string) bool {
	for _, x := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		if x == w {
			return true
		}
	}
	return false
}

func hasController(dir, c string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	return err == nil && hasWord(string(b), c)
}

func createV1(parent, rel, name string, limit uint64) (*Group, error) {
	g := &Group{Dir: filepath.Join(parent, name), Parent: parent, Path: filepath.Join(rel, name), LimitBytes: limit}
	if err := os.Mkdir(g.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create cgroup: %w", err)
	}
	n := strconv.FormatUint(limit, 10)
	err := write(g.Dir, "memory.limit_in_bytes", n)
	if err == nil && exists(g.Dir, "memory.memsw.limit_in_bytes") {
		err = write(g.Dir, "memory.memsw.limit_in_bytes", n)
	}
	if err != nil {
		os.Remove(g.Dir)
		return nil, err
	}
	return g, nil
}

func createV2(parent, rel, name string, limit uint64) (*Group, error) {
	if !hasController(parent, "memory") {
		return nil, fmt.Errorf("memory controller not enabled for %s (cgroup.subtree_control of its parent)", parent)
	}
	g := &Group{Dir: filepath.Join(parent, name), Parent: parent, Path: filepath.Join(rel, name), V2: true, LimitBytes: limit}
	if err := os.Mkdir(g.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create cgroup: %w", err)
	}
	err := write(g.Dir, "memory.max", strconv.FormatUint(limit, 10))
	if err == nil && exists(g.Dir, "memory.swap.max") {
		err = write(g.Dir, "memory.swap.max", "0")
	}
	if err != nil {
		os.Remove(g.Dir)
		return nil, err
	}
	return g, nil
}

// Add moves a process into the cgroup.
func (g *Group) Add(pid int) error {
	return write(g.Dir, "cgroup.procs", strconv.Itoa(pid))
}

// remove moves what is left back to the parent and deletes the cgroup.
func (g *Group) remove() error {
	var err error
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(g.Dir, "cgroup.procs"))
		for _, p := range strings.Fields(string(b)) {
			write(g.Parent, "cgroup.procs", p)
		}
		if err = syscall.Rmdir(g.Dir); err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
	}
	return err
}

func write(dir, file, value string) error {
	p := filepath.Join(dir, file)
	if err := os.WriteFile(p, []byte(value), 0); err != nil {
		return fmt.Errorf("write %s to %s: %w", value, p, err)
	}
	return nil
}

func exists(dir, file string) bool {
	_, err := os.Stat(filepath.Join(dir, file))
	return err == nil
}
