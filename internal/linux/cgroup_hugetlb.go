package linux

import (
	"bytes"
	"fmt"
	"slices"
)

// CgroupHugetlb is the hugetlb controller's view of a process's cgroup for
// one huge page size. Two limits exist (kernel 5.7+ for the second):
//
//   - the fault limit (v2 hugetlb.<size>.max, v1 hugetlb.<size>.limit_in_bytes)
//     is charged when a page is first touched: a process over it gets SIGBUS
//     ("Bus error") in the middle of its work, although mmap or shmget
//     succeeded;
//   - the reservation limit (hugetlb.<size>.rsvd.max, v1
//     .rsvd.limit_in_bytes) is charged at mmap/shmget time, which then fails
//     cleanly with ENOMEM (PostgreSQL huge_pages=try falls back to 4 KiB pages).
type CgroupHugetlb struct {
	Version       int    `json:"version"`
	Path          string `json:"path"`
	PageSizeBytes uint64 `json:"page_size_bytes"`
	// LimitBytes is the lowest fault limit from this cgroup up to the root;
	// nil when none is set. LimitPath is where it is set.
	LimitBytes *uint64 `json:"limit_bytes,omitempty"`
	LimitPath  string  `json:"limit_path,omitempty"`
	// RsvdLimitBytes is the lowest reservation limit; nil when none is set
	// or the kernel has no reservation accounting (RsvdAccounting false).
	RsvdLimitBytes *uint64 `json:"rsvd_limit_bytes,omitempty"`
	RsvdLimitPath  string  `json:"rsvd_limit_path,omitempty"`
	RsvdAccounting bool    `json:"rsvd_accounting"`
	UsageBytes     *uint64 `json:"usage_bytes,omitempty"` // nil when unreadable
	RsvdUsageBytes *uint64 `json:"rsvd_usage_bytes,omitempty"`
	// LimitHits counts allocations refused by the fault limit (v2 events
	// "max", v1 failcnt); nil when the kernel does not say.
	LimitHits *uint64 `json:"limit_hits,omitempty"`
}

// FaultLimitOnly reports the dangerous configuration: a fault limit without
// a reservation limit. A database that maps more huge pages than the limit
// starts normally and gets SIGBUS when it touches the page over the limit.
func (h CgroupHugetlb) FaultLimitOnly() bool {
	return h.LimitBytes != nil && h.RsvdLimitBytes == nil
}

// HugetlbSizeName is the kernel's name of a huge page size in hugetlb
// cgroup files: "2MB", "1GB", "64KB".
func HugetlbSizeName(pageBytes uint64) string {
	switch {
	case pageBytes >= 1<<30:
		return fmt.Sprintf("%dGB", pageBytes>>30)
	case pageBytes >= 1<<20:
		return fmt.Sprintf("%dMB", pageBytes>>20)
	}
	return fmt.Sprintf("%dKB", pageBytes>>10)
}

// ReadCgroupHugetlb reads the hugetlb controller of pid's cgroup for each
// page size. ok is false when no hugetlb controller is mounted or enabled
// for the process's cgroup.
func ReadCgroupHugetlb(fs FS, pid int, pageSizes []uint64) ([]CgroupHugetlb, bool, error) {
	b, err := readProcFile(fs, pid, "cgroup")
	if err != nil {
		return nil, false, err
	}
	root, cg, version, ok := hugetlbHierarchy(fs, ParseProcCgroup(bytes.NewReader(b)))
	if !ok {
		return nil, false, nil
	}
	var out []CgroupHugetlb
	for _, size := range pageSizes {
		if h, ok := readHugetlbSize(fs, root, cg, version, size); ok {
			out = append(out, h)
		}
	}
	return out, len(out) > 0, nil
}

// hugetlbHierarchy finds where pid's hugetlb cgroup is: a v1 hierarchy with
// the hugetlb controller, else the unified hierarchy when it has it.
func hugetlbHierarchy(fs FS, lines []CgroupLine) (root, cg string, version int, ok bool) {
	for _, l := range lines {
		if slices.Contains(l.Controllers, "hugetlb") {
			return "fs/cgroup/hugetlb", l.Path, 1, true
		}
	}
	for _, l := range lines {
		if l.ID == 0 && len(l.Controllers) == 0 {
			if r, ok := cgroupV2Root(fs, "hugetlb"); ok {
				return r, l.Path, 2, true
			}
		}
	}
	return "", "", 0, false
}

// hugetlbFiles are the file names of each version: limit, rsvd limit,
// usage, rsvd usage.
var hugetlbFiles = map[int][4]string{
	1: {"limit_in_bytes", "rsvd.limit_in_bytes", "usage_in_bytes", "rsvd.usage_in_bytes"},
	2: {"max", "rsvd.max", "current", "rsvd.current"},
}

func readHugetlbSize(fs FS, root, cg string, version int, size uint64) (CgroupHugetlb, bool) {
	pre := "hugetlb." + HugetlbSizeName(size) + "."
	names := hugetlbFiles[version]
	dir := fs.SysPath(root, cg)
	h := CgroupHugetlb{Version: version, Path: cg, PageSizeBytes: size}
	if v, err := readUintFile(fs, dir+"/"+pre+names[2]); err == nil {
		h.UsageBytes = &v
	} else if !fs.Exists(dir + "/" + pre + names[0]) {
		return h, false // the controller is not enabled for this cgroup
	}
	h.LimitBytes, h.LimitPath = lowestLimit(fs, root, cg, pre+names[0])
	if v, err := readUintFile(fs, dir+"/"+pre+names[3]); err == nil {
		h.RsvdAccounting, h.RsvdUsageBytes = true, &v
	}
	if h.RsvdAccounting {
		h.RsvdLimitBytes, h.RsvdLimitPath = lowestLimit(fs, root, cg, pre+names[1])
	}
	h.LimitHits = hugetlbHits(fs, dir, pre, version)
	return h, true
}

func hugetlbHits(fs FS, dir, pre string, version int) *uint64 {
	if version == 1 {
		if v, err := readUintFile(fs, dir+"/"+pre+"failcnt"); err == nil {
			return &v
		}
		return nil
	}
	if ev := readKVSpace(fs, dir+"/"+pre+"events"); ev != nil {
		if v, ok := ev["max"]; ok {
			return &v
		}
	}
	return nil
}
