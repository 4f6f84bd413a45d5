package advise

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/sysv"
	"github.com/dbmem/dbmem/internal/units"
)

const srcSysvShm = "/proc/sysvipc/shm"

// sysvChecks judge SysV shared memory (Oracle's SGA, MySQL's segments):
// rights to SHM_HUGETLB, segments over the kernel limits, orphans, and big
// segments in 4 KiB pages.
func sysvChecks(s *sysv.Snapshot) []finding.Finding {
	if s == nil {
		return nil
	}
	var out []finding.Finding
	for _, r := range sysv.CheckHugetlbRights(*s) {
		out = append(out, sysvRightsFinding(s.Kernel, r))
	}
	for _, o := range sysv.CheckShmMax(s.Segments, s.Kernel) {
		out = append(out, finding.Finding{ID: "sysv.over_shmmax", Severity: finding.Warning, Subject: "host",
			Title:    fmt.Sprintf("segment %d (%s) is bigger than kernel.shmmax %s", o.ID, units.Bytes(o.SizeBytes), units.Bytes(o.ShmMaxBytes)),
			Evidence: []finding.Evidence{ev("segment size", units.Bytes(o.SizeBytes), srcSysvShm), ev("kernel.shmmax", fmt.Sprint(o.ShmMaxBytes), srcSysctl)},
			Why:      "The limit was lowered after the segment was created: creating it again at the next start fails with EINVAL.",
			Fix:      "Raise kernel.shmmax to at least the segment's size.",
			Settings: []finding.Setting{{Target: finding.TargetSysctl, Name: "kernel.shmmax", Value: fmt.Sprint(o.SizeBytes), Current: fmt.Sprint(o.ShmMaxBytes),
				Formula: "the largest segment", Why: "shmget refuses bigger segments"}}})
	}
	out = append(out, sysvTotals(s)...)
	out = append(out, sysvOrphans(s)...)
	return append(out, sysvCandidates(s)...)
}

func sysvRightsFinding(k sysv.Kernel, r sysv.RightsFinding) finding.Finding {
	o := r.Owner
	f := finding.Finding{ID: "sysv." + string(r.Problem), Severity: finding.Warning, Subject: fmt.Sprintf("SysV segments of uid %d", o.UID),
		Evidence: []finding.Evidence{
			ev("SHM_HUGETLB segments", fmt.Sprintf("%v, %s", o.Segments, units.Bytes(o.NeededBytes)), srcSysvShm),
			ev("memlock (smallest soft limit)", limitBytesText(o.MemlockBytes, o.MemlockKnown), fmt.Sprintf("/proc/%v/limits", o.PIDs)),
			ev("vm.hugetlb_shm_group", fmt.Sprint(o.ShmGroup), srcSysctl),
			ev("in the group / CAP_IPC_LOCK", fmt.Sprintf("%v / %v", o.InShmGroup, o.CapIPCLock), "/proc/PID/status"),
		}}
	switch r.Problem {
	case sysv.NoRight, sysv.MemlockOnly:
		f.Title = fmt.Sprintf("uid %d could not create its %s of SHM_HUGETLB segments again", o.UID, units.Bytes(o.NeededBytes))
		f.Why = "The kernel creates SHM_HUGETLB segments only for CAP_IPC_LOCK or members of vm.hugetlb_shm_group " +
			"(a memlock limit alone is refused since Linux 5.x: measured EPERM on 6.18): the next start fails or falls back to 4 KiB pages."
		f.Fix = "Set vm.hugetlb_shm_group to the database's group (or give the service CAP_IPC_LOCK)."
	default:
		f.Severity = finding.Notice
		f.Title = fmt.Sprintf("memlock of uid %d is below its %s of SHM_HUGETLB segments", o.UID, units.Bytes(o.NeededBytes))
		f.Why = "The kernel does not need it, but Oracle checks memlock at startup (USE_LARGE_PAGES) and MySQL's documentation asks for it."
		f.Fix = "Raise the memlock limit: LimitMEMLOCK= in the systemd unit (limits.conf does not apply to services)."
	}
	f.Settings = []finding.Setting{{Target: finding.TargetSystemd, Name: "LimitMEMLOCK", Value: fmt.Sprint(o.NeededBytes),
		Current: limitBytesText(o.MemlockBytes, o.MemlockKnown), Formula: "sum of the owner's SHM_HUGETLB segment sizes",
		Why: "memlock must cover the SGA / large-page segments", Restart: "the database"}}
	if r.Problem != sysv.MemlockBelowSize {
		f.Settings = append(f.Settings, finding.Setting{Target: finding.TargetSysctl, Name: "vm.hugetlb_shm_group", Value: "<the database's gid>",
			Current: fmt.Sprint(k.HugetlbShmGroup), Formula: "gid of the processes that create the segments",
			Why: "grants SHM_HUGETLB without CAP_IPC_LOCK"})
	}
	return f
}

func limitBytesText(v uint64, known bool) string {
	switch {
	case !known:
		return "unknown"
	case v >= 1<<62:
		return "unlimited"
	}
	return units.Bytes(v)
}

func sysvTotals(s *sysv.Snapshot) []finding.Finding {
	t := sysv.CheckTotals(s.Segments, s.Kernel)
	if !t.OverShmAll() && !t.OverShmMni() {
		return nil
	}
	return []finding.Finding{{ID: "sysv.limits_reached", Severity: finding.Warning, Subject: "host",
		Title: "SysV shared memory is at its kernel limit: new segments fail with ENOSPC",
		Evidence: []finding.Evidence{ev("pages in use", fmt.Sprint(t.Pages), "sum of ceil(size / 4 KiB)"), ev("kernel.shmall", fmt.Sprint(t.ShmAllPages), srcSysctl),
			ev("segments", fmt.Sprint(t.Segments), srcSysvShm), ev("kernel.shmmni", fmt.Sprint(t.ShmMni), srcSysctl)},
		Why: "kernel.shmall counts every segment in base pages, huge or not; kernel.shmmni bounds their number.",
		Fix: "Raise kernel.shmall (pages) or kernel.shmmni, or remove orphan segments."}}
}

func sysvOrphans(s *sysv.Snapshot) []finding.Finding {
	var out []finding.Finding
	for _, o := range sysv.CheckOrphans(s.Segments, s.Kernel) {
		sev := finding.Info
		if o.HeldKnown && o.HeldBytes >= 64*MiB {
			sev = finding.Notice
		}
		out = append(out, finding.Finding{ID: "sysv.orphan", Severity: sev, Subject: "host",
			Title:    fmt.Sprintf("SysV segment %d (uid %d, %s) has no process attached", o.ID, o.UID, units.Bytes(o.SizeBytes)),
			Evidence: []finding.Evidence{ev("nattch", "0", srcSysvShm), ev("held (rss + swap)", limitBytesText(o.HeldBytes, o.HeldKnown), srcSysvShm), ev("creator pid", fmt.Sprint(o.CreatorPID), srcSysvShm)},
			Why:      "A segment outlives its processes until it is removed: its memory stays in use (and a SHM_HUGETLB one keeps its huge pages).",
			Fix:      fmt.Sprintf("If no database will attach it again: ipcrm -m %d", o.ID)})
	}
	return out
}

func sysvCandidates(s *sysv.Snapshot) []finding.Finding {
	var out []finding.Finding
	for _, c := range sysv.CheckHugePageCandidates(s.Segments, sysv.DefaultCandidateBytes, s.Kernel.HugePageSize()) {
		out = append(out, finding.Finding{ID: "sysv.4k_segment", Severity: finding.Notice, Subject: "host",
			Title: fmt.Sprintf("SysV segment %d (%s) in 4 KiB pages, attached by %d processes", c.ID, units.Bytes(c.SizeBytes), len(c.Attachers)),
			Evidence: []finding.Evidence{ev("page size", units.Bytes(c.PageSizeBytes), "smaps of an attaching process"),
				ev("page tables per process", units.Bytes(c.PageTableBytesPerProcess), "size / 4 KiB x 8 B"),
				ev("page tables, all attachers", units.Bytes(c.PageTableBytesAll), "computed"),
				ev("in huge pages", hugeCandidateText(c), "computed")},
			Why: "Every process that touches the segment pays 2 MiB of page table per GiB (the 5 GB of page tables of the Oracle field report).",
			Fix: "Create it with SHM_HUGETLB (Oracle USE_LARGE_PAGES=ONLY, MySQL large_pages) with a pool of sum(size/page)+1 pages."})
	}
	return out
}

func hugeCandidateText(c sysv.HugePageCandidate) string {
	if c.HugePages == nil {
		return "unknown: the default huge page size is not known (no Hugepagesize in /proc/meminfo)"
	}
	return fmt.Sprintf("%d pages, %s of page table per process", *c.HugePages, units.Bytes(*c.HugePageTableBytesPerProcess))
}
