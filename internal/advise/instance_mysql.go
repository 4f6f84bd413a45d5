package advise

import (
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/sysv"
)

// fromMySQL builds the view of a MySQL/MariaDB server. One process holds
// the buffer pool (its main shared memory, as the kernel maps it) and every
// connection's memory: the page tables of the pool are paid once, not per
// connection, and the cache has MySQL's own sizing rule.
// shmGroup is vm.hugetlb_shm_group, for its rights to SHM_HUGETLB.
func fromMySQL(m *mysql.Instance, defaultHuge uint64, shmGroup uint32) instance {
	v := instance{
		Engine:        MySQLEngine(m),
		Subject:       MySQLSubject(m),
		MainPID:       m.Process.PID,
		WantsHuge:     m.LargePages(),
		HugeSetting:   mysqlEvidence(m, "large_pages"),
		SettingsKnown: true, // the server's, its option files' or its version's defaults (mysql.Instance.Known)
		DefaultHuge:   defaultHuge,
		SharedBuffers: mysqlEvidence(m, "innodb_buffer_pool_size"),
		Worst:         mysql.ComputeWorstCase(m),
		words:         mysqlWords,
		my:            m,
	}
	if m.Cgroup != nil {
		v.Cgroup = m.Cgroup.Memory
		v.Hugetlb = m.Cgroup.Hugetlb
	}
	if bp := m.Memory.BufferPool; bp != nil {
		v.Shared = &segment{Path: "buffer pool", Bytes: bp.SizeBytes, PageSize: bp.PageSizeBytes, Hugetlb: bp.Hugetlb}
	}
	if defaultHuge > 0 {
		v.Huge = mysql.PlanHugePages(m, defaultHuge, basePage)
	}
	if sv := v.Huge.SysV; sv != nil && m.LargePages() && m.Creds != nil {
		v.Rights = &sysv.HugetlbOwner{NeededBytes: sv.MemlockBytes, PIDs: []int{m.Process.PID}, ShmGroup: shmGroup,
			InShmGroup: m.Creds.InGroup(shmGroup), CapIPCLock: m.Creds.CapIPCLock(), MemlockKnown: m.Memlock != nil}
		if m.Memlock != nil {
			v.Rights.MemlockBytes = m.Memlock.Soft
		}
	}
	for _, hm := range m.Memory.HugeMappings {
		v.HeldHugeBytes += hm.SizeBytes
	}
	if m.Process.PID > 0 {
		v.Procs = []labeled{mysqlProcess(m)}
	}
	return v
}

// engineWords are what the checks common to every engine say differently
// for one: their ids (stable across versions of dbmem) and the engine's
// reasons.
type engineWords struct {
	// worstID is the worst case's finding; worstFloor the share of RAM
	// below which it is not reported (0: always, as Info).
	worstID    string
	worstFloor float64
	worstWhy   string
	worstFix   func(h host) string
	// hugeSkipName is the id under which a missing input of the huge page check
	// is reported; sharedWhat names the shared memory's mapping.
	hugeSkipName, sharedWhat string
	// rightsID is the finding of the rights to SHM_HUGETLB; "" names it
	// by the problem (sysv.no-right, ...).
	rightsID string
	// ownCacheCheck names the engine's own check of its cache's size
	// ("" when memory.cache_share judges it).
	ownCacheCheck string
	// oneProcess: one process maps the shared memory, once: its page
	// tables do not grow with the connections.
	oneProcess bool
	// noSettings: no setting is read (an owner of SysV segments): the
	// checks of the worst case, the projected page tables and the cache
	// do not apply, and are not reported skipped.
	noSettings bool
}

var postgresWords = engineWords{
	worstID: "memory.worst_case",
	worstWhy: "PostgreSQL caps no total: every sort or hash node of every query may take work_mem x hash_mem_multiplier, " +
		"so a burst of heavy queries can exceed RAM, and the kernel then kills one backend and the postmaster restarts all of them.",
	worstFix: func(h host) string {
		return "Lower work_mem or max_connections (a pooler), or " + h.boundMemory() + "."
	},
	hugeSkipName: "hugepages.used",
	sharedWhat:   inSharedSegment,
}

var mysqlWords = engineWords{
	worstID: "mysql.worst_case", worstFloor: mysqlWorstCaseNotice,
	worstWhy: "Every connection may allocate its sort, join and read buffers and an in-memory temporary table at once; " +
		"nothing in the server caps the total, and the kernel's OOM killer ends the whole server (one process).",
	worstFix: func(host) string {
		return "Lower max_connections (a pooler such as ProxySQL) or the per-thread buffers, or the buffer pool."
	},
	hugeSkipName:  "mysql.large_pages",
	rightsID:      "mysql.sysv_rights",
	sharedWhat:    "the buffer pool's mapping (the server's /proc/PID/smaps)",
	ownCacheCheck: "mysql.buffer_pool_too_large",
	oneProcess:    true,
}
