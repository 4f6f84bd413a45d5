package postmortem

import (
	"fmt"

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
	// Both are nil when no limit is set (Unlimited for the first).
	LimitBytes     *uint64 `json:"limit_bytes"`
	RsvdLimitBytes *uint64 `json:"rsvd_limit_bytes"`
	Unlimited      bool    `json:"unlimited,omitempty"`
	// RsvdAccounting: the kernel has reservation limits (5.7+).
	RsvdAccounting bool `json:"rsvd_accounting,omitempty"`
	// Why explains a limit that could not be read.
	Why string `json:"why,omitempty"`
}

// ReadHugetlb reads the hugetlb limits of the cgroup of process pid for
// each huge page size of the host (linux.ReadCgroupHugetlb: the cgroup v1
// "hugetlb" hierarchy, or v2 where it has the controller; the lowest limit
// from the cgroup up to the root).
func ReadHugetlb(fs linux.FS, pid int, instance string, pageSizes []uint64) []HugetlbLimits {
	if len(pageSizes) == 0 {
		return []HugetlbLimits{{Instance: instance, Why: "this host has no huge page sizes (/sys/kernel/mm/hugepages)"}}
	}
	hs, ok, err := linux.ReadCgroupHugetlb(fs, pid, pageSizes)
	if err != nil {
		return []HugetlbLimits{{Instance: instance, Why: err.Error()}}
	}
	if !ok {
		return []HugetlbLimits{{Instance: instance, Why: "no hugetlb cgroup controller for this process"}}
	}
	out := make([]HugetlbLimits, 0, len(hs))
	for _, h := range hs {
		out = append(out, HugetlbLimits{Instance: instance, Cgroup: h.Path, Size: linux.HugetlbSizeName(h.PageSizeBytes),
			LimitBytes: h.LimitBytes, RsvdLimitBytes: h.RsvdLimitBytes, Unlimited: h.LimitBytes == nil, RsvdAccounting: h.RsvdAccounting})
	}
	return out
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
			why := "kernel before 5.7"
			if h.RsvdAccounting {
				why = "none set"
			}
			out = append(out, fmt.Sprintf("%s: cgroup %s limits hugetlb %s to %s with no reservation limit (%s): "+
				"an mmap beyond it succeeds and the first touch gets SIGBUS — confirmed.", h.Instance, h.Cgroup, h.Size, units.Bytes(*h.LimitBytes), why))
		default:
			out = append(out, fmt.Sprintf("%s: cgroup %s limits hugetlb %s to %s, reservations to %s.", h.Instance, h.Cgroup, h.Size,
				units.Bytes(*h.LimitBytes), units.Bytes(*h.RsvdLimitBytes)))
		}
	}
	return out
}
