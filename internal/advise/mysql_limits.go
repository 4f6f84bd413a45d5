package advise

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/units"
)

// checkMySQLSysVRights: a server that maps large pages with shmget must be
// allowed to create SHM_HUGETLB segments at its next start.
func checkMySQLSysVRights(h host, in *mysql.Instance) []Finding {
	if !in.LargePages() || in.Creds == nil {
		return nil
	}
	page, ok := h.DefaultPageSize()
	if !h.need("mysql.sysv_rights", MySQLSubject(in), have(inHugeSize, ok)) {
		return nil
	}
	p := mysql.PlanHugePages(in, page, basePage)
	if p.API != mysql.HugeSysV {
		return nil
	}
	group, _ := h.Sysctls.Uint("vm.hugetlb_shm_group")
	inGroup, capLock := in.Creds.InGroup(uint32(group)), in.Creds.CapIPCLock()
	memlockShort := in.Memlock != nil && in.Memlock.Soft < p.MemlockBytes
	if (inGroup || capLock) && !memlockShort {
		return nil
	}
	f := Finding{ID: "mysql.sysv_rights", Severity: Notice, Subject: MySQLSubject(in),
		Evidence: []Evidence{
			ev("vm.hugetlb_shm_group", fmt.Sprint(group), srcSysctl),
			ev("server gid, groups", fmt.Sprintf("%d, %v", in.Creds.FSGID, in.Creds.Groups), "/proc/PID/status"),
			ev("CAP_IPC_LOCK", fmt.Sprint(capLock), "/proc/PID/status CapEff"),
			ev("memlock", memlockText(in.Memlock), "/proc/PID/limits"),
			ev("SHM_HUGETLB segments needed", units.Bytes(p.MemlockBytes), "computed"),
		},
		Title: "the server may not create its SHM_HUGETLB segments at the next start",
		Why: "shmget(SHM_HUGETLB) is refused (EPERM) unless the process is in vm.hugetlb_shm_group or has CAP_IPC_LOCK; " +
			"MySQL then falls back to 4 KiB pages. Its documentation also asks for a memlock limit covering the segments.",
		Fix:      "Set vm.hugetlb_shm_group to the server's group and LimitMEMLOCK in its systemd unit.",
		Settings: sysvMySQLSettings(h, in, p)}
	if !inGroup && !capLock {
		f.Severity = Warning
	}
	return []Finding{f}
}

func memlockText(l *linux.Limit) string {
	if l == nil {
		return limitBytesText(0, false)
	}
	return limitBytesText(l.Soft, true)
}

// checkMySQLWorstCase: global buffers + max_connections x per-thread
// buffers against RAM.
func checkMySQLWorstCase(h host, in *mysql.Instance) []Finding {
	if !h.need("mysql.worst_case", MySQLSubject(in), known(inMemTotal, h.Meminfo.MemTotalBytes)) {
		return nil
	}
	wc := mysql.ComputeWorstCase(in)
	r := share(wc.TotalBytes, h.RAM)
	if h.RAM == 0 || r < mysqlWorstCaseNotice {
		return nil
	}
	f := Finding{ID: "mysql.worst_case", Severity: Notice, Subject: MySQLSubject(in),
		Title: fmt.Sprintf("worst case %s (%s of RAM): global %s + %d max_connections x %s per thread",
			units.Bytes(wc.TotalBytes), units.Percent(wc.TotalBytes, h.RAM), units.Bytes(wc.GlobalBytes), wc.MaxConnections, units.Bytes(wc.PerThreadBytes)),
		Why: "Every connection may allocate its sort, join and read buffers and an in-memory temporary table at once; " +
			"nothing in the server caps the total, and the kernel's OOM killer ends the whole server (one process).",
		Fix: "Lower max_connections (a pooler such as ProxySQL) or the per-thread buffers, or the buffer pool."}
	for _, l := range append(append([]mysql.Line{}, wc.Global...), wc.PerThread...) {
		f.Evidence = append(f.Evidence, ev(l.Name, units.Bytes(l.Bytes), l.Formula))
	}
	f.Evidence = append(f.Evidence, ev("connections", units.Bytes(wc.Connections.Bytes), wc.Connections.Formula),
		ev("performance_schema", units.Bytes(wc.PerfSchema.Bytes), wc.PerfSchema.Formula), ev("MemTotal", units.Bytes(h.RAM), srcMeminfo))
	if r >= 1 {
		f.Severity = Warning
	}
	return []Finding{f}
}

// mysqlWorstCaseNotice: a worst case above this share of RAM is reported.
const mysqlWorstCaseNotice = 0.8

// unitOf names the server's systemd unit for LimitMEMLOCK=.
func unitOf(in *mysql.Instance) string {
	if in.Cgroup != nil && in.Cgroup.Unit != "" {
		return in.Cgroup.Unit
	}
	return "the server's unit (mariadb.service or mysql.service)"
}
