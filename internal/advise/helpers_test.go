package advise

import (
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// host builds a snapshot of a host with ram bytes and sensible defaults:
// overcommit 2 at 50%, no swap, THP madvise, no pool, one NUMA node.
func hostSnap(ram uint64) *snapshot.Snapshot {
	return &snapshot.Snapshot{Host: linux.Host{
		Hostname: "db1",
		Meminfo: linux.Meminfo{MemTotalBytes: new(ram), CommitLimitBytes: new(ram / 2), CommittedASBytes: new(ram / 10),
			HugepagesizeBytes: new(2 * MiB), PageTablesBytes: new(8 * MiB), SwapTotalBytes: new(uint64(0)), SwapFreeBytes: new(uint64(0)),
			AnonHugePagesBytes: new(uint64(0))},
		HugePools: []linux.HugePool{{PageSizeBytes: 2 * MiB, Node: -1, Reserved: new(uint64(0)), Overcommit: new(uint64(0))}},
		THP:       linux.THP{Enabled: "madvise", Defrag: "madvise"},
		Sysctls:   linux.Sysctls{"vm.overcommit_memory": "2", "vm.overcommit_ratio": "50", "vm.swappiness": "10", "vm.zone_reclaim_mode": "0"},
		NUMANodes: 1,
	}}
}

// pgSet is a PostgreSQL setting as the server reports it.
func pgSet(value string, bytes ...uint64) postgres.Setting {
	s := postgres.Setting{Value: value, Source: postgres.FromServer}
	if len(bytes) > 0 {
		s.Bytes = &bytes[0]
	}
	return s
}

// pgInstance is a running instance with the given main segment and
// settings over PostgreSQL 15's defaults.
func pgInstance(shared, page uint64, settings postgres.Settings) *postgres.Instance {
	s := postgres.Defaults(15)
	s["shared_buffers"] = pgSet("x", shared*9/10)
	for k, v := range settings {
		s[k] = v
	}
	in := &postgres.Instance{PostmasterPID: 100, DataDir: "/var/lib/postgresql/15/main", Port: 5432, Major: 15, Settings: s,
		Shared: &postgres.SharedSegment{Path: "/dev/zero (deleted)", SizeBytes: shared, PageSizeBytes: page}}
	if page > basePage {
		in.Shared.Path, in.Shared.Hugetlb = "/anon_hugepage (deleted)", true
	}
	in.Processes = []postgres.Proc{proc(100, postgres.RolePostmaster, 20*MiB, 10*MiB, 0)}
	return in
}

// proc is a process with rss bytes of which shmem is shared memory.
func proc(pid int, role postgres.Role, rss, shmem uint64, adj int) postgres.Proc {
	return postgres.Proc{Process: linux.Process{PID: pid, Comm: "postgres", OOMScoreAdj: new(adj), OOMScore: new(0),
		Status: status(rss, shmem, 200*KiB)},
		Title: postgres.Title{Role: role}}
}

// status is a full status: rss bytes of which shmem shared, pte of page
// tables, no swap.
func status(rss, shmem, pte uint64) linux.Status {
	return linux.Status{HasMM: true, VmRSSBytes: new(rss), RssShmemBytes: new(shmem), RssAnonBytes: new(rss - shmem),
		VmPTEBytes: new(pte), VmSwapBytes: new(uint64(0))}
}

// other is a process of another program with rss bytes and adj.
func other(pid int, comm string, rss uint64, adj int) linux.Process {
	return linux.Process{PID: pid, Comm: comm, OOMScoreAdj: new(adj), Status: status(rss, 0, 0)}
}

// ids returns each finding's severity by ID (the last one for repeated IDs).
func ids(fs []finding.Finding) map[string]finding.Severity {
	m := map[string]finding.Severity{}
	for _, f := range fs {
		m[f.ID] = f.Severity
	}
	return m
}

func find(fs []finding.Finding, id string) (finding.Finding, bool) {
	for _, f := range fs {
		if f.ID == id {
			return f, true
		}
	}
	return finding.Finding{}, false
}
