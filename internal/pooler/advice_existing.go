package pooler

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// existing: a pooler runs. Its pools bound concurrency (for the clients
// that come through it); a pool larger than the server allows, clients
// waiting, and pools without a bound are findings.
func existing(in AdviceInput) Advice {
	l := in.Limit
	a := Advice{Kind: "pooler-ok", Title: "the poolers' pools bound the server connections they open", Formula: l.Formula}
	allowed := in.MaxConnections - in.Reserved
	if in.MaxConnections > 0 && l.Max > allowed {
		a.Findings = append(a.Findings, Finding{Severity: "warning",
			Title:   fmt.Sprintf("the poolers may open %d server connections, more than the %d %s lets in", l.Max, allowed, in.Engine),
			Formula: fmt.Sprintf("%s > max_connections %d - reserved %d = %d", l.Formula, in.MaxConnections, in.Reserved, allowed),
			Fix: "lower the pools (pool_size, max_db_connections) so their sum stays below max_connections minus the reserved " +
				"connections, or clients will meet \"sorry, too many clients already\" before the pool is full"})
	}
	if !l.Known {
		a.Findings = append(a.Findings, Finding{Severity: "warning",
			Title:   "a pool without a bound: the server connections the poolers may open are not known",
			Formula: strings.Join(l.Gaps, "; "),
			Fix:     "set max_db_connections (per database or in [pgbouncer]) or a forced user= per database, so each database has a bound"})
		a.Changes = boundChanges(l)
	}
	if m := l.Measured; m != nil && m.ClientsWaiting > 0 {
		a.Findings = append(a.Findings, Finding{Severity: "info",
			Title: fmt.Sprintf("%d client(s) wait for a server connection (longest %d s): the pools were full when read", m.ClientsWaiting, m.MaxWaitSeconds),
			Fix:   "a pool too small for the load, or transactions held open by clients: look at SHOW POOLS over time before raising pool_size"})
	}
	if in.BaselineBytes > 0 && l.Known {
		cost := uint64(l.Max) * in.BaselineBytes
		a.Evidence = append(a.Evidence, fmt.Sprintf("the poolers' %d server connections x %s per backend (%s) = %s",
			l.Max, units.Bytes(in.BaselineBytes), in.BaselineFrom, units.Bytes(cost)))
	}
	if len(a.Findings) > 0 {
		a.Kind, a.Title = "pooler-findings", a.Findings[0].Title
	}
	return a
}

// boundChanges bounds each PgBouncer database that has none: its
// max_db_connections at one pool's size, the bound a pool per database
// was meant to be.
func boundChanges(l *Limit) []Suggestion {
	var out []Suggestion
	for _, p := range l.Pools {
		if !p.Unbounded || p.Kind != PgBouncer || p.PerPool <= 0 || strings.Contains(p.Database, ".") {
			continue
		}
		c := Change{Database: p.Database, Key: "max_db_connections", Value: p.PerPool}
		out = append(out, Suggestion{PID: p.PID, Change: c, Command: fmt.Sprintf("dbmem pooler set --pid %d %s", p.PID, c),
			Why: fmt.Sprintf("one pool of %d for all users of %s together", p.PerPool, p.Database)})
	}
	return out
}
