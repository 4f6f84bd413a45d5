package budget

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/units"
)

// worstCase is every connection and parallel worker running a query whose
// every node uses work_mem x hash_mem_multiplier at once (the largest
// work_mem any role has), every autovacuum worker at its memory, JIT in
// every backend when on: nothing in PostgreSQL caps it.
func (b *pgBudget) worstCase() {
	s := b.s
	w := s.WorkMemBytes
	for _, r := range b.roleLines {
		w = max(w, r.workMem)
	}
	hm := b.factor - float64(b.nodes-1)
	perQuery := float64(w) * float64(b.nodes) * hm
	conns := s.MaxConnections + s.MaxParallelWorkers
	total := uint64(float64(conns)*perQuery) + uint64(s.MaxConnections)*s.TempBuffersBytes +
		uint64(s.AutovacuumMaxWorkers)*avMem(s) + s.MaintenanceWorkMemBytes + sumTerms(b.baselineTerms(s.MaxConnections, b.processes)) + uint64(b.processes)*b.pageTables
	jit := ""
	if s.JIT {
		total += uint64(s.MaxConnections) * b.jitCost
		jit = fmt.Sprintf(" + %d x %s JIT", s.MaxConnections, units.Bytes(b.jitCost))
	}
	b.r.WorstCase = WorstCase{Bytes: total,
		Formula: fmt.Sprintf("(%d max_connections + %d parallel workers) x %s work_mem x %d nodes x %g + %d x %s temp_buffers + %d x %s autovacuum + %s maintenance + %d processes x %s baseline%s and page tables%s = %s",
			s.MaxConnections, s.MaxParallelWorkers, units.PG(w), b.nodes, hm, s.MaxConnections, units.PG(s.TempBuffersBytes),
			s.AutovacuumMaxWorkers, units.PG(avMem(s)), units.PG(s.MaintenanceWorkMemBytes), b.processes, units.Bytes(b.baselineAvg()+b.pageTables), avgNote(b.in.Measured), jit, units.Bytes(total)),
		Why: b.worstWhy(total)}
}

func (b *pgBudget) worstWhy(total uint64) string {
	return WorstCaseWhy(b.r, total, b.s.MaxConnections)
}

// WorstCaseWhy says how the worst case differs from the budget and what
// happens past the limit.
func WorstCaseWhy(r Result, total uint64, maxConnections int) string {
	why := fmt.Sprintf("the budget counts %d active sessions, the worst case all %d connections with every node at work_mem x hash_mem_multiplier at once",
		r.Concurrency, maxConnections)
	if total > r.LimitBytes {
		past := "an OOM kill and a crash restart of every session"
		if r.LimitSource == FromCommitLimit {
			past = "\"out of memory\" errors for the queries past CommitLimit, the server up"
		}
		why += fmt.Sprintf("; it exceeds the limit by %s: nothing in PostgreSQL caps it, and past the limit comes %s", units.Bytes(total-r.LimitBytes), past)
	}
	return why
}

func avMem(s PGSettings) uint64 {
	if s.AutovacuumWorkMemBytes != nil {
		return *s.AutovacuumWorkMemBytes
	}
	return s.MaintenanceWorkMemBytes
}

func avgNote(m *Measured) string {
	if len(measuredRoles(m)) == 0 {
		return ""
	}
	return " (the roles' average)"
}
