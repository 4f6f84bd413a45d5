package plan

import (
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
)

// BudgetOptions are what `dbmem plan` is told for the memory budget.
type BudgetOptions struct {
	// ActiveSessions is the concurrency to budget for (0: measured, or
	// assumed on a what-if).
	ActiveSessions int
	// Profile is the workload the peers are computed for (PGTune's names).
	Profile string
	// History is a `dbmem watch --record` file: the peak connections
	// recorded bound the concurrency.
	History string
	// Off plans no budget.
	Off bool
}

// whatIfBudget is a what-if instance's budget input: the version's
// defaults with the changes, nothing measured.
func whatIfBudget(r Request, major int, set postgres.Settings) *budget.PGInput {
	if r.Budget.Off {
		return nil
	}
	in := &budget.PGInput{Subject: whatIfSubject(major), Major: major, Settings: budgetSettings(set), Asked: asked(r.Changes),
		ActiveSessions: r.Budget.ActiveSessions, Profile: r.Budget.Profile, NodesPerQuery: r.NodesPerQuery}
	in.Settings.IOWorkers = ioWorkers(major, set)
	in.Host.CPUs = r.WhatIf.CPUs
	return in
}

func asked(changes map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range changes {
		out[k] = true
	}
	return out
}

// budgetSettings reads the settings that decide private memory, with
// PostgreSQL's defaults where one is unknown.
func budgetSettings(s postgres.Settings) budget.PGSettings {
	b := budget.PGSettings{
		MaxConnections: intOf(s, "max_connections", 100), SuperuserReserved: intOf(s, "superuser_reserved_connections", 3),
		SharedBuffersBytes: bytesOf(s, "shared_buffers", 128<<20), WorkMemBytes: bytesOf(s, "work_mem", 4<<20),
		MaintenanceWorkMemBytes: bytesOf(s, "maintenance_work_mem", 64<<20), AutovacuumMaxWorkers: intOf(s, "autovacuum_max_workers", 3),
		MaxWorkerProcesses: intOf(s, "max_worker_processes", 8), MaxParallelWorkers: intOf(s, "max_parallel_workers", 8),
		MaxParallelWorkersPerGather: intOf(s, "max_parallel_workers_per_gather", 2), TempBuffersBytes: bytesOf(s, "temp_buffers", 8<<20),
	}
	b.HashMemMultiplier, _ = s.Float("hash_mem_multiplier")
	b.JIT, _ = s.Bool("jit")
	if v, ok := s.Bytes("autovacuum_work_mem"); ok && v > 0 {
		b.AutovacuumWorkMemBytes = &v
	}
	return b
}

// ioWorkers: PostgreSQL 18's io_method=worker (its default) runs
// io_workers processes (3 by default).
func ioWorkers(major int, s postgres.Settings) int {
	if major < 18 {
		return 0
	}
	if m := s.String("io_method"); m != "" && m != "worker" {
		return 0
	}
	return intOf(s, "io_workers", 3)
}

func intOf(s postgres.Settings, name string, dflt int) int {
	if v, ok := s.Int(name); ok {
		return int(v)
	}
	return dflt
}

func bytesOf(s postgres.Settings, name string, dflt uint64) uint64 {
	if v, ok := s.Bytes(name); ok {
		return v
	}
	return dflt
}

// runningBudget is a running instance's budget input: its settings as
// planned and what it shows (processes, spills, the log, history).
func runningBudget(r Request, pg *postgres.Instance, set postgres.Settings, subject string) *budget.PGInput {
	if r.Budget.Off {
		return nil
	}
	in := &budget.PGInput{Subject: subject, Major: pg.Major, Settings: budgetSettings(set), Asked: asked(r.Changes),
		ActiveSessions: r.Budget.ActiveSessions, Profile: r.Budget.Profile, NodesPerQuery: r.NodesPerQuery}
	in.Settings.IOWorkers = ioWorkers(pg.Major, set)
	fs := r.fs()
	in.Host.CPUs = cpusOf(fs, pg.PostmasterPID)
	in.Measured = Measure(fs, pg, r.Budget.History)
	in.Host.CoHostedBytes, in.Host.CoHostedFrom = coHosted(fs, r, pg)
	in.Pools = poolsOf(r.Snapshot, pg, r.Trust, fs)
	if cg := pg.Cgroup; cg != nil && cg.LimitBytes != nil {
		in.Host.CgroupLimitBytes, in.Host.CgroupPath = cg.LimitBytes, cg.LimitPath
	}
	return in
}

func whatIfSubject(major int) string {
	return "postgresql " + strings.TrimSpace(strconv.Itoa(major)) + " (what-if)"
}

// cpusOf is the CPUs the instance may use: those online, at most its
// cgroup's CPU quota (a pod's CPU limit); 0 when unknown.
func cpusOf(fs linux.FS, pid int) int {
	n, _ := linux.ReadCPUsOnline(fs)
	if q, _, ok, err := linux.ReadCgroupCPUs(fs, pid); err == nil && ok && (n == 0 || q < n) {
		return q
	}
	return n
}

// fs is the host the request reads (its processes' maps, /sys).
func (r Request) fs() linux.FS {
	if r.FS.Proc == "" {
		return linux.DefaultFS()
	}
	return r.FS
}
