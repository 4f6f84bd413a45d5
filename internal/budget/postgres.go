package budget

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/units"
)

// pgBudget is the working state of one instance's budget.
type pgBudget struct {
	in PGInput
	r  Result
	s  PGSettings // the proposed settings, filled step by step
	// active is the concurrency; parallel the parallel workers that may
	// run beside it; factor the work_mem multiples one active query uses.
	active, parallel int
	factor           float64
	nodes            int
	// baseline and pageTables are per process; processes counts them.
	baseline, pageTables uint64
	processes            int
	jitCost              uint64
	fixed                []Line // every line but the work areas
	roleLines            []roleShare
}

// Postgres budgets one PostgreSQL instance: the limit, the settings that
// fit it under the measured (or assumed) concurrency, the per-role
// work_mem of the roles that spill, the peers and the worst case. It is
// pure.
func Postgres(in PGInput) Result {
	b := &pgBudget{in: in, s: in.Settings}
	b.r = Result{Schema: Schema, Subject: in.Subject, Engine: "postgresql", Measured: in.Measured != nil, Peers: []Peer{}}
	b.limit()
	b.perProcess()
	b.maxConnections()
	b.concurrency()
	b.companions()
	b.solveWorkMem()
	b.roles()
	b.total()
	b.worstCase()
	b.r.Peers = b.peers()
	b.r.Differs = b.differs()
	if m := in.Measured; m != nil {
		b.r.Gaps = append(b.r.Gaps, m.Gaps...)
	}
	return b.r
}

func (b *pgBudget) limit() {
	l := ComputeLimit(b.in.Host)
	b.r.LimitBytes, b.r.LimitSource, b.r.LimitFormula, b.r.LimitLines = l.Bytes, l.Source, l.Formula, l.Lines
	if b.in.Host.CoHostedBytes == nil {
		b.r.Gaps = append(b.r.Gaps, Gap{What: "co-hosted processes", Why: "a what-if host: their private memory is not measured and none is assumed",
			Fix: "run dbmem plan on the host itself, or lower --ram by what the other software uses"})
	}
}

// perProcess sets the private cost of one process (baseline and page
// tables) and how many processes there are.
func (b *pgBudget) perProcess() {
	s := b.s
	b.nodes = b.in.NodesPerQuery
	if b.nodes < 1 {
		b.nodes = DefaultNodesPerQuery
	}
	b.processes = s.MaxConnections + s.AutovacuumMaxWorkers + s.MaxParallelWorkers + AuxProcesses + s.IOWorkers
	if m := b.in.Measured; m != nil && m.Backends > 0 {
		b.baseline, b.pageTables = m.BaselineP95Bytes, m.PageTablesP95Bytes
		return
	}
	b.baseline = DefaultFor(b.in.Major).BaselineP95Bytes
	b.pageTables = pageTablesPerProcess(b.in.Host)
}

// pageTablesPerProcess: a process that touched all of the shared memory
// maps it with 8 bytes per page (4 KiB pages, or 2 MiB ones in the pool).
func pageTablesPerProcess(h Host) uint64 {
	page := uint64(4 * units.KiB)
	if h.SharedInHugePages {
		page = 2 * units.MiB
	}
	return (h.SharedBytes + page - 1) / page * 8
}

// baselineLine is every process at its baseline: per role when measured
// (postgres_baseline.go).
func (b *pgBudget) baselineLine() Line {
	s := b.s
	ts := b.baselineTerms(s.MaxConnections, b.processes)
	return Line{Name: "backend baseline", Bytes: sumTerms(ts),
		Formula: fmt.Sprintf("%d processes (%d max_connections + %d autovacuum workers + %d parallel workers + %d background%s): %s",
			b.processes, s.MaxConnections, s.AutovacuumMaxWorkers, s.MaxParallelWorkers, AuxProcesses, ioWorkers(s), termsText(ts))}
}

func ioWorkers(s PGSettings) string {
	if s.IOWorkers == 0 {
		return ""
	}
	return fmt.Sprintf(" + %d io workers", s.IOWorkers)
}

func (b *pgBudget) pageTableLine() Line {
	how := "p95 measured VmPTE"
	if m := b.in.Measured; m == nil || m.Backends == 0 {
		how = fmt.Sprintf("%s shared memory touched whole, 8 B per page", units.Bytes(b.in.Host.SharedBytes))
	}
	return Line{Name: "page tables", Bytes: uint64(b.processes) * b.pageTables,
		Formula: fmt.Sprintf("%d processes x %s (%s)", b.processes, units.Bytes(b.pageTables), how)}
}
