package budget

import "fmt"

// concurrency is how many sessions the budget lets run their sorts and
// hashes at once:
//
//   - given (what-if --active-sessions);
//   - measured: twice the active sessions sampled (one sample is a lower
//     bound of the peak), at least the CPU count (4 when unknown), at most
//     the connections `watch --record` ever saw, at most max_connections;
//   - what-if with CPUs: the PostgreSQL wiki's ((core_count x 2) +
//     effective_spindle_count), one spindle;
//   - what-if without: every connection active (nothing says otherwise).
//
// The poolers, when read, cap it at the server connections they open.
func (b *pgBudget) concurrency() {
	n, src := b.concurrencyFrom()
	max := b.s.MaxConnections
	if p := b.in.Pools; p != nil && p.Known && p.MaxServerConnections > 0 && p.MaxServerConnections < n {
		n, src = p.MaxServerConnections, src+fmt.Sprintf("; capped at the %d server connections the poolers open (%s)", p.MaxServerConnections, p.Formula)
	}
	if n > max {
		n, src = max, src+fmt.Sprintf("; capped at max_connections %d", max)
	}
	if n < 1 {
		n = 1
	}
	if b.in.Pools == nil {
		b.r.Gaps = append(b.r.Gaps, Gap{What: "connection poolers", Why: "not looked for: the concurrency is not bounded by a pooler's server connections"})
	}
	b.active, b.r.Concurrency, b.r.ConcurrencySource = n, n, src
	b.parallel = b.s.MaxParallelWorkers
}

func (b *pgBudget) concurrencyFrom() (int, string) {
	cpus := b.in.Host.CPUs
	m := b.in.Measured
	switch {
	case b.in.ActiveSessions > 0:
		return b.in.ActiveSessions, "given (--active-sessions)"
	case m != nil:
		return measuredConcurrency(m, cpus)
	case cpus > 0:
		return 2*cpus + 1, fmt.Sprintf("what-if: (%d CPUs x 2) + 1 spindle (PostgreSQL wiki, Number Of Database Connections)", cpus)
	}
	return b.s.MaxConnections, "what-if without a CPU count: every connection assumed active (--cpus or --active-sessions narrow it)"
}

func measuredConcurrency(m *Measured, cpus int) (int, string) {
	floor, floorWhy := cpus, fmt.Sprintf("%d CPUs", cpus)
	if cpus <= 0 {
		floor, floorWhy = 4, "4 (CPU count unknown)"
	}
	n := 2 * m.ActiveNow
	src := fmt.Sprintf("2 x %d active sessions sampled (%s)", m.ActiveNow, m.ActiveFrom)
	if n < floor {
		n, src = floor, src+", at least "+floorWhy
	}
	if h := m.HistoryPeakConnections; h != nil && *h < n && *h >= 2*m.ActiveNow && *h > 0 {
		n, src = *h, src+fmt.Sprintf(", at most the %d connections recorded (%s)", *h, m.HistoryFrom)
	}
	if a := m.HistoryPeakActive; a != nil && *a > n {
		n, src = *a, src+fmt.Sprintf(", at least the peak of %d active sessions recorded (%s)", *a, m.HistoryActiveFrom)
	}
	return n, src
}
