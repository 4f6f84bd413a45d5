package advise

import (
	"cmp"
	"fmt"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/sysv"
	"github.com/dbmem/dbmem/internal/units"
)

const srcSysvShm = "/proc/sysvipc/shm"

// sysvChecks judge the host's SysV shared memory: segments over the kernel
// limits and orphans. Their owners are instances (fromSysV).
func sysvChecks(s *sysv.Snapshot) []finding.Finding {
	if s == nil {
		return nil
	}
	var out []finding.Finding
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
	return append(out, sysvOrphans(s)...)
}

// checkHugetlbRights: whoever creates SHM_HUGETLB segments (an owner of
// SysV segments its existing ones, a MySQL/MariaDB server at its next
// start) must be allowed to create them again, and should have the
// memlock limit MySQL and Oracle ask for.
func checkHugetlbRights(h host, in instance) []finding.Finding {
	if in.Rights == nil {
		return nil
	}
	o := in.Rights
	p, bad := o.Problem()
	if !bad {
		return nil
	}
	f := finding.Finding{ID: cmp.Or(in.words.rightsID, "sysv."+string(p)), Severity: finding.Warning, Subject: in.Subject,
		Evidence: []finding.Evidence{
			ev("SHM_HUGETLB segments", fmt.Sprintf("%v, %s", o.Segments, units.Bytes(o.NeededBytes)), srcSysvShm),
			ev("memlock (smallest soft limit)", limitBytesText(o.MemlockBytes, o.MemlockKnown), fmt.Sprintf("/proc/%v/limits", o.PIDs)),
			ev("vm.hugetlb_shm_group", fmt.Sprint(o.ShmGroup), srcSysctl),
			ev("in the group / CAP_IPC_LOCK", fmt.Sprintf("%v / %v", o.InShmGroup, o.CapIPCLock), "/proc/PID/status"),
		}}
	if o.Segments == nil {
		f.Evidence[0] = ev("SHM_HUGETLB segments needed", units.Bytes(o.NeededBytes), "computed")
	}
	if p == sysv.MemlockBelowSize {
		f.Severity = finding.Notice
		f.Title = fmt.Sprintf("memlock is below its %s of SHM_HUGETLB segments", units.Bytes(o.NeededBytes))
		f.Why = "The kernel does not need it, but Oracle checks memlock at startup (USE_LARGE_PAGES) and MySQL's documentation asks for it."
		f.Fix = "Raise the memlock limit: LimitMEMLOCK= in the systemd unit (limits.conf does not apply to services)."
	} else {
		f.Title = fmt.Sprintf("its %s of SHM_HUGETLB segments could not be created again at the next start", units.Bytes(o.NeededBytes))
		f.Why = "The kernel creates SHM_HUGETLB segments only for CAP_IPC_LOCK or members of vm.hugetlb_shm_group " +
			"(a memlock limit alone is refused since Linux 5.x: measured EPERM on 6.18): the next start fails or falls back to 4 KiB pages."
		f.Fix = "Set vm.hugetlb_shm_group to the database's group (or give the service CAP_IPC_LOCK), and LimitMEMLOCK= in its unit."
	}
	f.Settings = rightsSettings(h, in, p)
	return []finding.Finding{f}
}

// rightsSettings: a MySQL/MariaDB server's own (its gid and unit are
// known), else the memlock limit and, unless only memlock is short, the group.
func rightsSettings(h host, in instance, p sysv.RightsProblem) []finding.Setting {
	if in.my != nil {
		return sysvMySQLSettings(h, in.my, in.Huge)
	}
	o := in.Rights
	out := []finding.Setting{{Target: finding.TargetSystemd, Name: "LimitMEMLOCK", Value: fmt.Sprint(o.NeededBytes),
		Current: limitBytesText(o.MemlockBytes, o.MemlockKnown), Formula: "sum of the owner's SHM_HUGETLB segment sizes",
		Why: "memlock must cover the SGA / large-page segments", Restart: "the database"}}
	if p != sysv.MemlockBelowSize {
		out = append(out, finding.Setting{Target: finding.TargetSysctl, Name: "vm.hugetlb_shm_group", Value: "<the database's gid>",
			Current: fmt.Sprint(o.ShmGroup), Formula: "gid of the processes that create the segments",
			Why: "grants SHM_HUGETLB without CAP_IPC_LOCK"})
	}
	return out
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
