package linux

import (
	"bufio"
	"bytes"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
)

// CgroupLine is one line of /proc/PID/cgroup: "0::/system.slice/x.service"
// (v2) or "4:memory:/docker/abc" (v1).
type CgroupLine struct {
	ID          int
	Controllers []string
	Path        string
}

// ParseProcCgroup parses /proc/PID/cgroup (memcg reads its own with it).
func ParseProcCgroup(r io.Reader) []CgroupLine {
	var out []CgroupLine
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), ":", 3)
		if len(f) != 3 {
			continue
		}
		id, err := strconv.Atoi(f[0])
		if err != nil {
			continue
		}
		var ctrl []string
		if f[1] != "" {
			ctrl = strings.Split(f[1], ",")
		}
		out = append(out, CgroupLine{ID: id, Controllers: ctrl, Path: f[2]})
	}
	return out
}

// CgroupMemory is the memory controller's view of a process's cgroup.
type CgroupMemory struct {
	Version int    `json:"version"` // 1 or 2
	Path    string `json:"path"`
	// LimitBytes is the lowest memory limit on the path from this cgroup to
	// the root; nil when there is none. LimitPath says where it is set.
	LimitBytes *uint64 `json:"limit_bytes,omitempty"`
	LimitPath  string  `json:"limit_path,omitempty"`
	// UsageBytes and the memory.stat figures are nil when their file or
	// key could not be read (shmem is in v1's memory.stat from 4.x).
	UsageBytes *uint64 `json:"usage_bytes,omitempty"`
	AnonBytes  *uint64 `json:"anon_bytes,omitempty"`
	FileBytes  *uint64 `json:"file_bytes,omitempty"`
	ShmemBytes *uint64 `json:"shmem_bytes,omitempty"`
	// OOMKills counts OOM kills in this cgroup (v2 memory.events, v1
	// memory.oom_control on 4.13+); nil when the kernel does not say.
	OOMKills *uint64 `json:"oom_kills,omitempty"`
}

// unlimitedFloor: v1 prints "no limit" as PAGE_COUNTER_MAX pages
// (9223372036854771712 on x86-64); anything this large means none.
const unlimitedFloor = 1 << 62

// ReadCgroupMemory finds the memory cgroup of pid and reads its usage and
// the effective limit. ok is false when no memory controller is mounted.
func ReadCgroupMemory(fs FS, pid int) (CgroupMemory, bool, error) {
	b, err := readProcFile(fs, pid, "cgroup")
	if err != nil {
		return CgroupMemory{}, false, err
	}
	lines := ParseProcCgroup(bytes.NewReader(b))
	for _, l := range lines {
		if slices.Contains(l.Controllers, "memory") {
			return readCgroup(fs, cgroupV1Root, l.Path, cgroupV1Files), true, nil
		}
	}
	for _, l := range lines {
		if l.ID == 0 && len(l.Controllers) == 0 {
			if root, ok := cgroupV2Root(fs, "memory"); ok {
				return readCgroup(fs, root, l.Path, cgroupV2Files), true, nil
			}
		}
	}
	return CgroupMemory{}, false, nil
}

// cgroupV2Root is the unified hierarchy's mount when it has controller:
// /sys/fs/cgroup (pure v2) or /sys/fs/cgroup/unified (hybrid).
func cgroupV2Root(fs FS, controller string) (string, bool) {
	for _, root := range []string{"fs/cgroup", "fs/cgroup/unified"} {
		b, err := fs.ReadFile(fs.SysPath(root, "cgroup.controllers"))
		if err == nil && slices.Contains(strings.Fields(string(b)), controller) {
			return root, true
		}
	}
	return "", false
}

// cgroupFiles names where each version of the memory controller keeps what
// CgroupMemory holds.
type cgroupFiles struct {
	version              int
	usage, events, limit string // files in the cgroup's directory
	anon, file           string // keys of memory.stat
}

var (
	cgroupV2Files = cgroupFiles{version: 2, usage: "memory.current", events: "memory.events",
		limit: "memory.max", anon: "anon", file: "file"}
	cgroupV1Files = cgroupFiles{version: 1, usage: "memory.usage_in_bytes", events: "memory.oom_control",
		limit: "memory.limit_in_bytes", anon: "rss", file: "cache"}
)

// cgroupV1Root is where the v1 memory hierarchy is mounted, under /sys.
const cgroupV1Root = "fs/cgroup/memory"

// readCgroup reads cgroup cg of the hierarchy mounted at root (under /sys).
func readCgroup(fs FS, root, cg string, f cgroupFiles) CgroupMemory {
	m := CgroupMemory{Version: f.version, Path: cg}
	dir := fs.SysPath(root, cg)
	if v, err := readUintFile(fs, dir+"/"+f.usage); err == nil {
		m.UsageBytes = &v
	}
	stat := readKVSpace(fs, dir+"/memory.stat")
	m.AnonBytes, m.FileBytes, m.ShmemBytes = optKey(stat, f.anon), optKey(stat, f.file), optKey(stat, "shmem")
	if ev := readKVSpace(fs, dir+"/"+f.events); ev != nil {
		if v, ok := ev["oom_kill"]; ok {
			m.OOMKills = &v
		}
	}
	m.LimitBytes, m.LimitPath = lowestLimit(fs, root, cg, f.limit)
	return m
}

// lowestLimit walks from cgroup cg up to the root and returns the lowest
// limit found in file, and the cgroup that sets it.
func lowestLimit(fs FS, root, cg, file string) (*uint64, string) {
	var lim *uint64
	var at string
	for p := cg; ; p = path.Dir(p) {
		v, err := readUintFile(fs, fs.SysPath(root, p, file))
		if err == nil && v < unlimitedFloor && (lim == nil || v < *lim) {
			lim, at = &v, p
		}
		if p == "/" || p == "." || p == "" {
			return lim, at
		}
	}
}

// readKVSpace reads "key value" lines (memory.stat, memory.events); nil when
// the file cannot be read.
func readKVSpace(fs FS, p string) map[string]uint64 {
	b, err := fs.ReadFile(p)
	if err != nil {
		return nil
	}
	out := map[string]uint64{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 {
			if v, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				out[f[0]] = v
			}
		}
	}
	return out
}

// optKey is stat[key], nil when absent (or stat is nil).
func optKey(stat map[string]uint64, key string) *uint64 {
	if v, ok := stat[key]; ok {
		return &v
	}
	return nil
}
