package budget

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// roleShare is a role whose sessions run with a work_mem of their own.
type roleShare struct {
	name    string
	active  int
	workMem uint64
}

// roles proposes ALTER ROLE ... SET work_mem for the roles that spill:
// what they held in memory (work_mem) plus the largest spill seen,
// rounded up to RoleStep, within the room the budget leaves (shared
// among the spilling roles, at most RoleShare of the limit each). A role
// that does not spill is never raised; one whose own work_mem would take
// more than RoleShare of the limit is lowered to it.
func (b *pgBudget) roles() {
	m := b.in.Measured
	if m == nil {
		return
	}
	spills := largestSpills(m.Spills)
	measures := roleMeasures(m, spills)
	room := units.Sub(b.r.LimitBytes, b.totalNow())
	n := 0
	for _, rm := range measures {
		if spills[rm.Name].Bytes > 0 && rm.Name != "" {
			n++
		}
	}
	for _, rm := range measures {
		r := b.role(rm, spills[rm.Name], room, n)
		b.r.Roles = append(b.r.Roles, r)
	}
	if sp, ok := spills[""]; ok {
		b.r.Notes = append(b.r.Notes, fmt.Sprintf("spills of no known role (%s): a parallel worker's (no session, no %%u), a log line prefix without %%u, or a role dropped since; they raise no role's work_mem",
			strings.Join(sp.sources, "; ")))
	}
}

func (b *pgBudget) role(rm RoleMeasure, sp spillSum, room uint64, spilling int) Role {
	r := Role{Name: rm.Name, Backends: rm.Backends, BaselineMedianBytes: rm.MedianBytes, BaselineP95Bytes: rm.P95Bytes,
		Active: rm.Active, Current: rm.WorkMem, SpillBytes: sp.Bytes, SpillSource: sp.sources}
	active := max(rm.Active, 1)
	eff := b.s.WorkMemBytes
	if rm.WorkMemBytes > 0 {
		eff = rm.WorkMemBytes
	}
	roleMax := uint64(float64(b.r.LimitBytes) * RoleShare)
	if sp.Bytes == 0 {
		return b.quietRole(r, rm, active, roleMax)
	}
	want := ceilStep(eff+sp.Bytes, RoleStep)
	extra := min(roleMax, room/uint64(max(spilling, 1)))
	top := floorSetting(b.s.WorkMemBytes+uint64(float64(extra)/(float64(active)*b.factor)), minWorkMem)
	w := min(want, top)
	r.Formula = fmt.Sprintf("%s work_mem + %s largest spill, rounded up to %s = %s; at most %s work_mem + %s room / (%d active x %s) = %s",
		units.PG(eff), units.Bytes(sp.Bytes), units.PG(RoleStep), units.PG(want), units.PG(b.s.WorkMemBytes), units.Bytes(extra), active,
		factorText(b.nodes, b.factor-float64(b.nodes-1)), units.PG(top))
	if w <= eff {
		r.Why = "spills, but the budget has no room to give it more work_mem"
		b.keepRole(rm, active)
		return r
	}
	r.Proposed = units.PG(w)
	r.Why = fmt.Sprintf("its queries spill (%s): it held %s in memory and wrote the rest to disk", strings.Join(sp.sources, "; "), units.PG(eff))
	b.roleLines = append(b.roleLines, roleShare{name: rm.Name, active: active, workMem: w})
	return r
}

// quietRole: no spill seen. Never raised; its own work_mem is kept (and
// counted) unless it takes more than RoleShare of the limit.
func (b *pgBudget) quietRole(r Role, rm RoleMeasure, active int, roleMax uint64) Role {
	r.Why = "no spill seen: not raised"
	if rm.WorkMemBytes == 0 {
		return r
	}
	top := floorSetting(uint64(float64(roleMax)/(float64(active)*b.factor)), minWorkMem)
	if rm.WorkMemBytes > top && top >= b.s.WorkMemBytes {
		r.Proposed = units.PG(top)
		r.Formula = fmt.Sprintf("%s of the %s limit / (%d active x %s) = %s", units.Percent(roleMax, b.r.LimitBytes), units.Bytes(b.r.LimitBytes),
			active, factorText(b.nodes, b.factor-float64(b.nodes-1)), units.PG(top))
		r.Why = fmt.Sprintf("its own work_mem %s takes more than %.0f%% of the limit and no spill shows it is needed", rm.WorkMem, RoleShare*100)
		b.roleLines = append(b.roleLines, roleShare{name: rm.Name, active: active, workMem: top})
		return r
	}
	r.Why = "no spill seen: its own work_mem " + rm.WorkMem + " is kept"
	b.keepRole(rm, active)
	return r
}

func (b *pgBudget) keepRole(rm RoleMeasure, active int) {
	if rm.WorkMemBytes > 0 {
		b.roleLines = append(b.roleLines, roleShare{name: rm.Name, active: active, workMem: rm.WorkMemBytes})
	}
}

// totalNow is the budget at the chosen work_mem before any role's own.
func (b *pgBudget) totalNow() uint64 {
	return sumOf(b.baseLines()) + mulBytes(b.active+b.parallel, b.s.WorkMemBytes, b.factor)
}

type spillSum struct {
	Bytes   uint64
	sources []string
}

// largestSpills keeps each role's largest spill and every source that saw one.
func largestSpills(spills []Spill) map[string]spillSum {
	out := map[string]spillSum{}
	for _, s := range spills {
		if s.Bytes == 0 {
			continue
		}
		cur := out[s.Role]
		cur.Bytes = max(cur.Bytes, s.Bytes)
		cur.sources = append(cur.sources, fmt.Sprintf("%s %s", units.Bytes(s.Bytes), s.Source))
		out[s.Role] = cur
	}
	return out
}

// roleMeasures lists the measured roles and those only spills name,
// sorted by name.
func roleMeasures(m *Measured, spills map[string]spillSum) []RoleMeasure {
	seen := map[string]bool{}
	var out []RoleMeasure
	for _, r := range m.Roles {
		seen[r.Name] = true
		out = append(out, r)
	}
	for name := range spills {
		if !seen[name] && name != "" {
			out = append(out, RoleMeasure{Name: name})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
