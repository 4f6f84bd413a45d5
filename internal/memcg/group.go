package memcg

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Group is a memory cgroup made by Create.
type Group struct {
	// Dir is the group's directory, ParentDir its parent's.
	Dir       string `json:"dir"`
	ParentDir string `json:"parent_dir"`
	// Path is the cgroup path the kernel prints (oom_memcg=, task_memcg=).
	Path string `json:"path"`
	V2   bool   `json:"v2"`
	// LimitBytes is the memory limit set (swap included: v1 memsw, v2
	// swap.max 0).
	LimitBytes uint64 `json:"limit_bytes"`
}

// Version is 1 or 2.
func (g *Group) Version() int {
	if g.V2 {
		return 2
	}
	return 1
}

// Create makes the memory cgroup name limited to limit bytes, swap
// included, in the place Where chooses, under sys (the sysfs root, "/sys").
// Needs root.
func Create(sys, name string, limit uint64) (*Group, error) {
	g, err := Plan(sys, name, limit)
	if err != nil {
		return nil, err
	}
	return g, g.Make()
}

// Plan says where Create would make the group, without making it: a
// caller can journal the directory first.
func Plan(sys, name string, limit uint64) (*Group, error) {
	if strings.ContainsAny(name, "/\x00") || name == "" || name[0] == '.' {
		return nil, fmt.Errorf("cgroup name %q: one path element, not starting with a dot", name)
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("read /proc/self/cgroup: %w", err)
	}
	own := ParseOwn(string(self))
	files := Files{}
	for _, p := range placeFiles(own) {
		if b, err := os.ReadFile(filepath.Join(sys, p)); err == nil {
			files[p] = string(b)
		}
	}
	pl, err := Where(own, files)
	if err != nil {
		return nil, err
	}
	g := &Group{ParentDir: filepath.Join(sys, pl.Mount, pl.Parent), Path: filepath.Join(pl.Parent, name), V2: pl.V2, LimitBytes: limit}
	g.Dir = filepath.Join(g.ParentDir, name)
	return g, nil
}

// Make creates the planned group and sets its limit.
func (g *Group) Make() error {
	if err := os.Mkdir(g.Dir, 0o755); err != nil {
		return fmt.Errorf("create memory cgroup: %w", err)
	}
	if err := g.setLimit(); err != nil {
		syscall.Rmdir(g.Dir)
		return err
	}
	return nil
}

// SetLimit changes the group's limit.
func (g *Group) SetLimit(limit uint64) error {
	g.LimitBytes = limit
	return g.setLimit()
}

func (g *Group) setLimit() error {
	n := strconv.FormatUint(g.LimitBytes, 10)
	if g.V2 {
		err := write(g.Dir, "memory.max", n)
		if err == nil && exists(g.Dir, "memory.swap.max") {
			err = write(g.Dir, "memory.swap.max", "0")
		}
		return err
	}
	// memsw (memory + swap) may never be below the memory limit: raising
	// takes memsw first, lowering the memory limit first.
	err := write(g.Dir, "memory.limit_in_bytes", n)
	if exists(g.Dir, "memory.memsw.limit_in_bytes") {
		if werr := write(g.Dir, "memory.memsw.limit_in_bytes", n); werr != nil {
			return werr
		}
		if err != nil {
			err = write(g.Dir, "memory.limit_in_bytes", n)
		}
	}
	return err
}

// Add moves a process (all its threads) into the group. Its children
// forked later are born in it. Memory it touched before stays charged where
// it was (v1 moves no charges by default).
func (g *Group) Add(pid int) error {
	return write(g.Dir, "cgroup.procs", strconv.Itoa(pid))
}

// Procs lists the processes in the group.
func (g *Group) Procs() []int { return procs(g.Dir) }

func procs(dir string) []int {
	b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// Remove moves what is left in the group to its parent and deletes it,
// retrying for up to wait while exiting processes leave.
func (g *Group) Remove(wait time.Duration) error { return RemoveDir(g.Dir, g.ParentDir, wait) }

// RemoveDir removes the group at dir (a lab journal names it), moving what
// is left in it to parentDir first. A group already gone is not an error.
func RemoveDir(dir, parentDir string, wait time.Duration) error {
	var err error
	for end := time.Now().Add(wait); ; time.Sleep(100 * time.Millisecond) {
		for _, pid := range procs(dir) {
			write(parentDir, "cgroup.procs", strconv.Itoa(pid))
		}
		if err = syscall.Rmdir(dir); err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("remove memory cgroup %s: %w", dir, err)
		}
	}
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
