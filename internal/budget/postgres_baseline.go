package budget

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// The backend baseline is counted per role, because a backend's private
// memory at rest (catalog and relation caches, plan caches, what its last
// query left in the heap) follows what its sessions run, not the server:
// an OLTP role's backends hold 1-3 MiB, a reporting role's that JIT-compiled
// hold 20 MiB. One p95 over all client backends is the minority's figure
// when the minority is costly (3 reporting backends among 30 OLTP ones make
// the p95), and charging it to every connection slot overstates the
// baseline many times over (issue 20: 80 processes x 19.4 MiB on a 2 GiB
// host left no room for work_mem). So:
//
//   - each role's connected backends at that role's own p95 (the p95, not
//     the median: a role's backends grow towards its costliest as they run
//     its queries);
//   - every other process (connection slots not open now, autovacuum and
//     parallel workers, the background processes) at the p95 of the bulk:
//     the role with the most backends (on a tie, the costlier). A
//     connection not open yet is most likely one more of that role; a
//     minority role's outliers are charged to its own backends only.
//
// JIT is not in the baseline: internal/plan subtracts the measured JIT
// cost from the backends that had compiled (JIT is counted once, in its own
// line, per active session). Without roles (or without a measurement)
// every process is at the one p95, as before.
type baseTerm struct {
	n   int
	per uint64
	of  string
}

// baselineTerms splits procs processes of which conns are connection
// slots.
func (b *pgBudget) baselineTerms(conns, procs int) []baseTerm {
	m := b.in.Measured
	roles := measuredRoles(m)
	if len(roles) == 0 {
		return []baseTerm{{procs, b.baseline, b.baselineHow()}}
	}
	var out []baseTerm
	connected := 0
	for _, r := range roles {
		if connected+r.Backends > conns {
			break // fewer slots than backends now (a lowered max_connections): the bulk's below
		}
		connected += r.Backends
		out = append(out, baseTerm{r.Backends, rolePer(m, r), fmt.Sprintf("role %q's p95%s", r.Name, jitNote(r))})
	}
	bulk := roles[0]
	if rest := procs - connected; rest > 0 {
		out = append(out, baseTerm{rest, rolePer(m, bulk), fmt.Sprintf("the bulk's p95, role %q's: the other slots and processes", bulk.Name)})
	}
	return out
}

// measuredRoles are the roles with backends now, the bulk (most backends,
// then costliest) first.
func measuredRoles(m *Measured) []RoleMeasure {
	if m == nil || m.Backends == 0 {
		return nil
	}
	var out []RoleMeasure
	for _, r := range m.Roles {
		if r.Backends > 0 {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Backends != out[j].Backends {
			return out[i].Backends > out[j].Backends
		}
		return rolePer(m, out[i]) > rolePer(m, out[j])
	})
	return out
}

// rolePer is a role's p95; the p95 of all backends when the role's was not
// measured (unknown is never zero).
func rolePer(m *Measured, r RoleMeasure) uint64 {
	if r.P95Bytes == 0 {
		return m.BaselineP95Bytes
	}
	return r.P95Bytes
}

func jitNote(r RoleMeasure) string {
	if r.JITCompiled == 0 {
		return ""
	}
	return fmt.Sprintf(", JIT of %d taken out", r.JITCompiled)
}

func (b *pgBudget) baselineHow() string {
	if m := b.in.Measured; m != nil && m.Backends > 0 {
		return "p95 measured Pss_Anon of " + fmt.Sprint(m.Backends) + " client backends"
	}
	return "p95 Pss_Anon of an idle backend, " + DefaultFor(b.in.Major).Source
}

func sumTerms(ts []baseTerm) uint64 {
	var s uint64
	for _, t := range ts {
		s += uint64(t.n) * t.per
	}
	return s
}

func termsText(ts []baseTerm) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = fmt.Sprintf("%d x %s (%s)", t.n, units.Bytes(t.per), t.of)
	}
	return strings.Join(parts, " + ")
}

// baselineAvg is the baseline line's bytes per process.
func (b *pgBudget) baselineAvg() uint64 {
	return sumTerms(b.baselineTerms(b.s.MaxConnections, b.processes)) / uint64(max(b.processes, 1))
}
