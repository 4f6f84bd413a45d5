package linux

import (
	"bytes"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
)

// ReadCgroupCPUs is the CPU limit of pid's cgroup: the lowest quota /
// period on its path (v2 cpu.max, v1 cpu.cfs_quota_us and
// cpu.cfs_period_us), in CPUs rounded up, and the cgroup that sets it. ok
// is false when no quota is set (or no cpu controller is mounted).
func ReadCgroupCPUs(fs FS, pid int) (cpus int, at string, ok bool, err error) {
	b, err := readProcFile(fs, pid, "cgroup")
	if err != nil {
		return 0, "", false, err
	}
	lines := ParseProcCgroup(bytes.NewReader(b))
	for _, l := range lines {
		if slices.Contains(l.Controllers, "cpu") {
			for _, root := range []string{"fs/cgroup/cpu,cpuacct", "fs/cgroup/cpu"} {
				if fs.Exists(fs.SysPath(root)) {
					c, at, ok := lowestQuota(fs, root, l.Path, readV1Quota)
					return c, at, ok, nil
				}
			}
		}
	}
	for _, l := range lines {
		if l.ID == 0 && len(l.Controllers) == 0 {
			if root, found := cgroupV2Root(fs, "cpu"); found {
				c, at, ok := lowestQuota(fs, root, l.Path, readV2Quota)
				return c, at, ok, nil
			}
		}
	}
	return 0, "", false, nil
}

// lowestQuota walks from cg to the root for the lowest quota in CPUs.
func lowestQuota(fs FS, root, cg string, read func(FS, string) (float64, bool)) (int, string, bool) {
	best, at := math.Inf(1), ""
	for p := cg; ; p = path.Dir(p) {
		if v, ok := read(fs, fs.SysPath(root, p)); ok && v < best {
			best, at = v, p
		}
		if p == "/" || p == "." || p == "" {
			break
		}
	}
	if math.IsInf(best, 1) {
		return 0, "", false
	}
	return max(1, int(math.Ceil(best))), at, true
}

func readV2Quota(fs FS, dir string) (float64, bool) {
	b, err := fs.ReadFile(dir + "/cpu.max")
	if err != nil {
		return 0, false
	}
	q, p, ok := ParseCPUMax(string(b))
	return q / p, ok
}

func readV1Quota(fs FS, dir string) (float64, bool) {
	q, err1 := fs.ReadFile(dir + "/cpu.cfs_quota_us")
	p, err2 := fs.ReadFile(dir + "/cpu.cfs_period_us")
	if err1 != nil || err2 != nil {
		return 0, false
	}
	quota, qerr := strconv.ParseInt(strings.TrimSpace(string(q)), 10, 64)
	period, perr := strconv.ParseInt(strings.TrimSpace(string(p)), 10, 64)
	if qerr != nil || perr != nil || quota <= 0 || period <= 0 {
		return 0, false
	}
	return float64(quota) / float64(period), true
}

// ParseCPUMax reads cgroup v2's cpu.max: "400000 100000" is a quota of 4
// CPUs; "max 100000" is none (ok false).
func ParseCPUMax(s string) (quota, period float64, ok bool) {
	f := strings.Fields(s)
	if len(f) != 2 || f[0] == "max" {
		return 0, 0, false
	}
	q, err1 := strconv.ParseUint(f[0], 10, 63)
	p, err2 := strconv.ParseUint(f[1], 10, 63)
	if err1 != nil || err2 != nil || q == 0 || p == 0 {
		return 0, 0, false
	}
	return float64(q), float64(p), true
}
