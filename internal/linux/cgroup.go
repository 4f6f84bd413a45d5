package linux

import (
	"bufio"
	"bytes"
	"io"
	"path"
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

func parseProcCgroup(r io.Reader) []CgroupLine {
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
	UsageBytes uint64  `json:"usage_bytes"`
	AnonBytes  uint64  `json:"anon_bytes"`
	FileBytes  uint64  `json:"file_bytes"`
	ShmemBytes uint64  `json:"shmem_bytes"`
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
	lines := parseProcCgroup(bytes.NewReader(b))
	for _, l := range lines {
		if contains(l.Controllers, "memory") {
			return readCgroupV1(fs, l.Path), true, nil
		}
	}
	for _, l := range lines {
		if l.ID == 0 && len(l.Controllers) == 0 {
			if root, ok := cgroupV2Root(fs); ok {
				return readCgroupV2(fs, root, l.Path), true, nil
			}
		}
	}
	return CgroupMemory{}, false, nil
}

// cgroupV2Root is the unified hierarchy's mount when it has the memory
// controller: /sys/fs/cgroup (pure v2) or /sys/fs/cgroup/unified (hybrid).
func cgroupV2Root(fs FS) (string, bool) {
	for _, root := range []string{"fs/cgroup", "fs/cgroup/unified"} {
		b, err := fs.ReadFile(fs.SysPath(root, "cgroup.controllers"))
		if err == nil && contains(strings.Fields(string(b)), "memory") {
			return root, true
		}
	}
	return "", false
}

func readCgroupV2(fs FS, root, cg string) CgroupMemory {
	m := CgroupMemory{Version: 2, Path: cg}
	dir := fs.SysPath(root, cg)
	m.UsageBytes, _ = readUintFile(fs, dir+"/memory.current")
	stat := readKVSpace(fs, dir+"/memory.stat")
	m.AnonBytes, m.FileBytes, m.ShmemBytes = stat["anon"], stat["file"], stat["shmem"]
	if ev := readKVSpace(fs, dir+"/memory.events"); ev != nil {
		if v, ok := ev["oom_kill"]; ok {
			m.OOMKills = &v
		}
	}
	m.LimitBytes, m.LimitPath = lowestLimit(fs, root, cg, "memory.max")
	return m
}

func readCgroupV1(fs FS, cg string) CgroupMemory {
	m := CgroupMemory{Version: 1, Path: cg}
	root := "fs/cgroup/memory"
	dir := fs.SysPath(root, cg)
	m.UsageBytes, _ = readUintFile(fs, dir+"/memory.usage_in_bytes")
	stat := readKVSpace(fs, dir+"/memory.stat")
	m.AnonBytes, m.FileBytes, m.ShmemBytes = stat["rss"], stat["cache"], stat["shmem"]
	if oc := readKVSpace(fs, dir+"/memory.oom_control"); oc != nil {
		if v, ok := oc["oom_kill"]; ok {
			m.OOMKills = &v
		}
	}
	m.LimitBytes, m.LimitPath = lowestLimit(fs, root, cg, "memory.limit_in_bytes")
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
