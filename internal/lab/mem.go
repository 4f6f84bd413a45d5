package lab

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// Mem is the part of /proc/meminfo the lab measures with. The lab runs on
// a live host and compares readings: every line it uses must be there, so
// a kernel without one is refused (memOf) rather than measured as 0.
type Mem struct {
	MemTotalBytes, MemFreeBytes, MemAvailableBytes, BuffersBytes, CachedBytes   uint64
	ShmemBytes, SlabBytes, SReclaimableBytes, KernelStackBytes, PageTablesBytes uint64
	CommittedASBytes, HugepagesizeBytes                                         uint64
	HugePagesTotal, HugePagesFree, HugePagesRsvd, HugePagesSurp                 uint64
}

// memOf takes the lines the lab uses from m; an error names those missing.
func memOf(m linux.Meminfo) (Mem, error) {
	var out Mem
	missing := copyNeeded([]needed{
		{"MemTotal", m.MemTotalBytes, &out.MemTotalBytes}, {"MemFree", m.MemFreeBytes, &out.MemFreeBytes},
		{"MemAvailable", m.MemAvailableBytes, &out.MemAvailableBytes}, {"Buffers", m.BuffersBytes, &out.BuffersBytes},
		{"Cached", m.CachedBytes, &out.CachedBytes}, {"Shmem", m.ShmemBytes, &out.ShmemBytes},
		{"Slab", m.SlabBytes, &out.SlabBytes}, {"SReclaimable", m.SReclaimableBytes, &out.SReclaimableBytes},
		{"KernelStack", m.KernelStackBytes, &out.KernelStackBytes}, {"PageTables", m.PageTablesBytes, &out.PageTablesBytes},
		{"Committed_AS", m.CommittedASBytes, &out.CommittedASBytes}, {"Hugepagesize", m.HugepagesizeBytes, &out.HugepagesizeBytes},
		{"HugePages_Total", m.HugePagesTotal, &out.HugePagesTotal}, {"HugePages_Free", m.HugePagesFree, &out.HugePagesFree},
		{"HugePages_Rsvd", m.HugePagesRsvd, &out.HugePagesRsvd}, {"HugePages_Surp", m.HugePagesSurp, &out.HugePagesSurp},
	})
	if len(missing) > 0 {
		return out, fmt.Errorf("/proc/meminfo has no %s line: the lab measures with them (a kernel 3.14+ with huge pages)", strings.Join(missing, ", "))
	}
	return out, nil
}

// readMem reads /proc/meminfo for the lab.
func readMem(fs linux.FS) (Mem, error) {
	m, err := linux.ReadMeminfo(fs)
	if err != nil {
		return Mem{}, err
	}
	return memOf(m)
}

// statusMem is the part of /proc/PID/status the lab uses; like Mem, a
// missing line (a kernel before 4.5) is an error, not a 0.
type statusMem struct {
	VmRSS, RssAnon, RssShmem, VmPTE, VmSwap, Hugetlb uint64
}

func statusOf(pid int, st linux.Status) (statusMem, error) {
	var out statusMem
	missing := copyNeeded([]needed{
		{"VmRSS", st.VmRSSBytes, &out.VmRSS}, {"RssAnon", st.RssAnonBytes, &out.RssAnon},
		{"RssShmem", st.RssShmemBytes, &out.RssShmem}, {"VmPTE", st.VmPTEBytes, &out.VmPTE},
		{"VmSwap", st.VmSwapBytes, &out.VmSwap}, {"HugetlbPages", st.HugetlbPageBytes, &out.Hugetlb},
	})
	if len(missing) > 0 {
		return out, fmt.Errorf("/proc/%d/status has no %s line: the lab measures with them (a kernel 4.5+)", pid, strings.Join(missing, ", "))
	}
	return out, nil
}

// readStatusMem reads a process's status for the lab.
func readStatusMem(fs linux.FS, pid int) (statusMem, error) {
	st, err := linux.ReadStatus(fs, pid)
	if err != nil {
		return statusMem{}, err
	}
	return statusOf(pid, st)
}

// needed is a line the lab measures with: its key, its parsed value (nil:
// absent) and where it goes.
type needed struct {
	key      string
	src, dst *uint64
}

// copyNeeded copies each value and returns the keys of those absent.
func copyNeeded(ns []needed) (missing []string) {
	for _, n := range ns {
		if n.src == nil {
			missing = append(missing, n.key)
			continue
		}
		*n.dst = *n.src
	}
	return missing
}
