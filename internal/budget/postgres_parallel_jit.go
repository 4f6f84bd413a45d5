package budget

import (
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/units"
)

// parallelWorkers: with the CPU count, at most one parallel worker per CPU
// and half the CPUs per Gather (PGTune and timescaledb-tune do the same);
// without it they are kept. Every parallel worker is budgeted with its
// own work areas: max_parallel_workers is the server's own cap.
func (b *pgBudget) parallelWorkers() {
	s := &b.s
	cpus := b.in.Host.CPUs
	total := Setting{Name: "max_parallel_workers", Current: strconv.Itoa(s.MaxParallelWorkers),
		Why: "each parallel worker runs its own sorts and hashes at work_mem"}
	gather := Setting{Name: "max_parallel_workers_per_gather", Current: strconv.Itoa(s.MaxParallelWorkersPerGather),
		Why: "workers one query may start"}
	switch {
	case b.in.Asked["max_parallel_workers"]:
		total.Formula, total.Asked = total.Current+" (asked for)", true
	case cpus <= 0:
		total.Formula = total.Current + " (kept: CPU count unknown)"
	default:
		s.MaxParallelWorkers = min(s.MaxParallelWorkers, cpus)
		total.Formula = fmt.Sprintf("min(%s, %d CPUs) = %d", total.Current, cpus, s.MaxParallelWorkers)
	}
	switch {
	case b.in.Asked["max_parallel_workers_per_gather"]:
		gather.Formula, gather.Asked = gather.Current+" (asked for)", true
	case cpus <= 0:
		gather.Formula = gather.Current + " (kept: CPU count unknown)"
	default:
		s.MaxParallelWorkersPerGather = min(s.MaxParallelWorkersPerGather, max(1, cpus/2), s.MaxParallelWorkers)
		gather.Formula = fmt.Sprintf("min(%s, %d CPUs / 2, max_parallel_workers) = %d", gather.Current, cpus, s.MaxParallelWorkersPerGather)
	}
	total.Value, gather.Value = strconv.Itoa(s.MaxParallelWorkers), strconv.Itoa(s.MaxParallelWorkersPerGather)
	b.parallel = s.MaxParallelWorkers
	b.r.Settings = append(b.r.Settings, total, gather)
}

// tempBuffers are kept; a session that touched a temporary table keeps
// them: counted for every active session.
func (b *pgBudget) tempBuffers() {
	v := units.PG(b.s.TempBuffersBytes)
	b.r.Settings = append(b.r.Settings, Setting{Name: "temp_buffers", Value: v, Current: v, Formula: v + " (kept)",
		Why: "allocated when a session first uses a temporary table, kept until it ends: counted for every active session"})
	b.fixed = append(b.fixed, Line{Name: "temp_buffers", Bytes: uint64(b.active) * b.s.TempBuffersBytes,
		Formula: fmt.Sprintf("%d active sessions x %s temp_buffers", b.active, v)})
}

// jit stays on while JIT's cost for every active session is at most
// JITShare of the limit (its cost measured where backends compiled, else
// JITCostBytes).
func (b *pgBudget) jit() {
	cur := onOff(b.s.JIT)
	set := Setting{Name: "jit", Current: cur}
	cost, how := b.jitMeasure()
	b.jitCost = cost
	n, nText := b.jitSessions()
	need := uint64(n) * cost
	share := uint64(float64(b.r.LimitBytes) * JITShare)
	switch {
	case b.in.Asked["jit"]:
		set.Value, set.Formula, set.Why, set.Asked = cur, cur+" (asked for)", "the planned configuration", true
	case !b.s.JIT:
		set.Value, set.Formula, set.Why = "off", "off (kept)", "JIT is off"
	case need > share:
		b.s.JIT = false
		set.Value = "off"
		set.Formula = fmt.Sprintf("%s x %s JIT (%s) = %s > %.0f%% of the %s limit", nText, units.Bytes(cost), how, units.Bytes(need), JITShare*100, units.Bytes(b.r.LimitBytes))
		set.Why = "a backend that JIT-compiles keeps LLVM's code and caches: on this host they would crowd out work_mem"
	default:
		set.Value = "on"
		set.Formula = fmt.Sprintf("on: %s x %s JIT (%s) = %s <= %.0f%% of the limit", nText, units.Bytes(cost), how, units.Bytes(need), JITShare*100)
		set.Why = "its cost fits the budget"
	}
	b.r.Settings = append(b.r.Settings, set)
	if b.s.JIT {
		b.fixed = append(b.fixed, Line{Name: "JIT", Bytes: need, Formula: fmt.Sprintf("%s x %s (%s)", nText, units.Bytes(cost), how)})
	}
}

// jitSessions are the active sessions JIT is counted for: once each. The
// backends whose measured baseline already holds their JIT code (it could
// not be measured apart: every backend had compiled) are not counted again.
func (b *pgBudget) jitSessions() (int, string) {
	text := fmt.Sprintf("%d active sessions", b.active)
	m := b.in.Measured
	if m == nil || m.JITInBaseline == 0 {
		return b.active, text
	}
	n := max(b.active-m.JITInBaseline, 0)
	return n, fmt.Sprintf("(%s - %d whose baseline already holds their JIT code) = %d", text, m.JITInBaseline, n)
}

func (b *pgBudget) jitMeasure() (uint64, string) {
	if m := b.in.Measured; m != nil && m.JIT != nil && m.JIT.CostBytes > 0 {
		return m.JIT.CostBytes, fmt.Sprintf("measured: %d of the backends had compiled", m.JIT.Compiled)
	}
	return JITCostBytes, "per backend that compiled, measured on PostgreSQL 15"
}

func onOff(v bool) string {
	if v {
		return "on"
	}
	return "off"
}
