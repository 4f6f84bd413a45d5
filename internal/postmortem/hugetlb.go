package postmortem

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/units"
)

// HugetlbLimits are an instance's hugetlb cgroup limits for one huge page
// size, read from this host: what confirms (or rules out) the bus error of
// huge pages in a container. A limit the kernel does not have is nil.
type HugetlbLimits struct {
	Instance string `json:"instance"`
	Cgroup   string `json:"cgroup"`
	Size     string `json:"size"` // "2MB", "1GB"
	// LimitBytes is hugetlb.<size>.limit_in_bytes (v1) or .max (v2);
	// RsvdLimitBytes the reservation limit (kernel 5.7+), which makes an
	// mmap beyond the limit fail instead of the first touch.
	LimitBytes     *uint64 `json:"limit_bytes"`
	RsvdLimitBytes *uint64 `json:"rsvd_limit_bytes"`
	Unlimited      bool    `json:"unlimited,omitempty"`
	// Why explains a limit that could not be read.
	Why string `json:"why,omitempty"`
}

// ReadHugetlb reads the hugetlb limits of the cgroup of process pid
// (cgroup v1 "hugetlb" hierarchy, or v2 with the hugetlb controller).
func ReadHugetlb(fs linux.FS, pid int, instance string) []HugetlbLimits {
	b, err := fs.ReadFile(fs.ProcPath(fmt.Sprintf("/%d/cgroup", pid)))
	if err != nil {
		return []HugetlbLimits{{Instance: instance, Why: err.Error()}}
	}
	dir, rel := hugetlbDir(b)
	if dir == "" {
		return []HugetlbLimits{{Instance: instance, Why: "no hugetlb cgroup controller for this process"}}
	}
	base := fs.SysPath(path.Join("/fs/cgroup", dir, rel))
	var out []HugetlbLimits
	for _, size := range []string{"2MB", "1GB"} {
		h := HugetlbLimits{Instance: instance, Cgroup: rel, Size: size}
		h.LimitBytes = readLimit(fs, base, "hugetlb."+size+".limit_in_bytes", "hugetlb."+size+".max")
		h.RsvdLimitBytes = readLimit(fs, base, "hugetlb."+size+".rsvd.limit_in_bytes", "hugetlb."+size+".rsvd.max")
		if h.LimitBytes == nil {
			continue
		}
		h.Unlimited = *h.LimitBytes >= 1<<62
		out = append(out, h)
	}
	return out
}

// hugetlbDir finds the hugetlb hierarchy in /proc/PID/cgroup: the v1
// "N:hugetlb:/path" line, else the v2 "0::/path" line.
func hugetlbDir(b []byte) (dir, rel string) {
	// Split, not a bufio.Scanner: nothing is dropped at a long line.
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) == 3 && strings.Contains(","+f[1]+",", ",hugetlb,") {
			return "hugetlb", f[2]
		}
		if len(f) == 3 && f[0] == "0" && f[1] == "" {
			dir, rel = "", f[2]
		}
	}
	if rel != "" {
		return "/", rel
	}
	return "", ""
}

func readLimit(fs linux.FS, base string, names ...string) *uint64 {
	for _, n := range names {
		b, err := fs.ReadFile(path.Join(base, n))
		if err != nil {
			continue
		}
		s := strings.TrimSpace(string(b))
		if s == "max" {
			v := uint64(1 << 63)
			return &v
		}
		if v, err := strconv.ParseUint(s, 10, 64); err == nil {
			return &v
		}
	}
	return nil
}

// hugetlbNotes say what this host's cgroup limits show about a bus error.
func hugetlbNotes(ls []HugetlbLimits, instance string) []string {
	var out []string
	for _, h := range ls {
		if h.Instance != instance && instance != "" {
			continue
		}
		switch {
		case h.Why != "":
			out = append(out, fmt.Sprintf("%s: the hugetlb limits could not be read (%s).", h.Instance, h.Why))
		case h.Unlimited:
			out = append(out, fmt.Sprintf("%s: cgroup %s has no hugetlb %s limit now: this cgroup does not explain a bus error.", h.Instance, h.Cgroup, h.Size))
		case h.RsvdLimitBytes == nil:
			out = append(out, fmt.Sprintf("%s: cgroup %s limits hugetlb %s to %s with no reservation limit (kernel before 5.7): "+
				"an mmap beyond it succeeds and the first touch gets SIGBUS — confirmed.", h.Instance, h.Cgroup, h.Size, units.Bytes(*h.LimitBytes)))
		default:
			out = append(out, fmt.Sprintf("%s: cgroup %s limits hugetlb %s to %s, reservations to %s.", h.Instance, h.Cgroup, h.Size,
				units.Bytes(*h.LimitBytes), units.Bytes(*h.RsvdLimitBytes)))
		}
	}
	return out
}
