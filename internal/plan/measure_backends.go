package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
)

// backendCost is one client backend's private cost: Pss_Anon + swap
// (cost) and VmPTE apart; jit when it had loaded llvmjit.so.
type backendCost struct {
	role       string
	cost, pte  uint64
	active     bool
	jit        bool
	measurable bool
}

// clientCosts reads the client backends' costs; with JIT on, which of
// them had JIT-compiled (their maps hold llvmjit.so).
//
// Only a backend whose executable mappings grew since the fork (VmLib
// beyond the postmaster's) can have loaded llvmjit.so: the others' maps
// are not read, which at 200 idle backends saved 70-120 ms of dbmem
// report (docs/performance.md).
func clientCosts(fs linux.FS, pg *postgres.Instance, jitOn bool) []backendCost {
	var out []backendCost
	base := postmasterLib(pg)
	for _, p := range pg.Processes {
		if p.Role != postgres.RoleClient {
			continue
		}
		bc := backendCost{role: p.User, active: p.State == "active"}
		if c, _, ok := p.PrivateCost(); ok {
			bc.pte = *p.Status.VmPTEBytes // known: PrivateCost needs it
			bc.cost, bc.measurable = c-bc.pte, true
		}
		grew := true
		if lib := p.Status.VmLibBytes; base != nil && lib != nil && *lib == *base {
			grew = false // no library loaded since the fork
		}
		if jitOn && bc.measurable && grew {
			if maps, err := linux.ReadMaps(fs, p.PID); err == nil {
				bc.jit = loadedJIT(maps)
			}
		}
		out = append(out, bc)
	}
	return out
}

// measureBackends: JIT's cost (the backends that compiled against those
// that did not), taken out of the backends that compiled so that the
// budget counts it once; then the baseline (Pss_Anon + swap; VmPTE apart)
// of the client backends, per role, the active ones, and the workers
// running.
func measureBackends(m *budget.Measured, pg *postgres.Instance, costs []backendCost, jitOn bool) {
	for _, p := range pg.Processes {
		switch p.Role {
		case postgres.RoleParallel:
			m.ParallelSeen++
		case postgres.RoleAVWorker:
			m.AutovacuumSeen++
		}
	}
	if jitOn {
		m.JIT = measureJIT(m, costs)
		takeOutJIT(m, costs)
	}
	summarize(m, pg, costs)
}

// summarize sets the baseline overall and per role.
func summarize(m *budget.Measured, pg *postgres.Instance, costs []backendCost) {
	var all, ptes []uint64
	byRole := map[string][]uint64{}
	active, jit := map[string]int{}, map[string]int{}
	for _, c := range costs {
		if c.active {
			m.ActiveNow++
			active[c.role]++
		}
		if !c.measurable {
			continue
		}
		all, ptes = append(all, c.cost), append(ptes, c.pte)
		byRole[c.role] = append(byRole[c.role], c.cost)
		if c.jit && m.JIT != nil {
			jit[c.role]++
		}
	}
	m.Backends = len(all)
	if len(all) > 0 {
		m.BaselineMedianBytes, m.BaselineP95Bytes = postgres.Percentile(all, 50), postgres.Percentile(all, 95)
		m.PageTablesP95Bytes = postgres.Percentile(ptes, 95)
	}
	for role, v := range byRole {
		rm := budget.RoleMeasure{Name: role, Backends: len(v), MedianBytes: postgres.Percentile(v, 50), P95Bytes: postgres.Percentile(v, 95),
			Active: active[role], JITCompiled: jit[role]}
		if pg.Work != nil {
			rm.WorkMem = pg.Work.RoleWorkMem(role)
			rm.WorkMemBytes, _ = units.ParsePG(rm.WorkMem, "kB")
		}
		m.Roles = append(m.Roles, rm)
	}
	addSettingOnlyRoles(m, pg)
	sort.Slice(m.Roles, func(i, j int) bool { return m.Roles[i].Name < m.Roles[j].Name })
}

// measureJIT compares the median cost of the client backends that had
// JIT-compiled with that of those that had not; nil (and a gap) when
// there is no one to compare.
func measureJIT(m *budget.Measured, costs []backendCost) *budget.JITMeasure {
	var with, without []uint64
	for _, c := range costs {
		switch {
		case !c.measurable:
		case c.jit:
			with = append(with, c.cost)
		default:
			without = append(without, c.cost)
		}
	}
	if len(with) == 0 {
		m.Gaps = append(m.Gaps, budget.Gap{What: "JIT's cost", Why: "no client backend had JIT-compiled a query: the cost measured on PostgreSQL 15 is used"})
		return nil
	}
	if len(without) == 0 {
		m.JITInBaseline = len(with)
		m.Gaps = append(m.Gaps, budget.Gap{What: "JIT's cost", Why: fmt.Sprintf("every client backend had JIT-compiled, none to compare with: "+
			"the cost measured on PostgreSQL 15 is used, and not counted again for the %d whose baseline holds it", len(with))})
		return nil
	}
	a, b := postgres.Percentile(with, 50), postgres.Percentile(without, 50)
	if a <= b {
		return nil
	}
	return &budget.JITMeasure{Compiled: len(with), CostBytes: a - b,
		Formula: fmt.Sprintf("median %s of %d backends with llvmjit.so - median %s of %d without", units.Bytes(a), len(with), units.Bytes(b), len(without))}
}

// takeOutJIT subtracts the measured JIT cost from the backends that
// compiled (at least the cheapest backend without JIT is left: their
// memory at rest is no less than a backend's that never compiled).
func takeOutJIT(m *budget.Measured, costs []backendCost) {
	if m.JIT == nil {
		return
	}
	var floor uint64
	for _, c := range costs {
		if c.measurable && !c.jit && (floor == 0 || c.cost < floor) {
			floor = c.cost
		}
	}
	for i := range costs {
		if c := &costs[i]; c.jit && c.measurable {
			c.cost = max(c.cost-min(c.cost, m.JIT.CostBytes), floor)
		}
	}
}

// postmasterLib is the postmaster's VmLib: what its backends inherit.
func postmasterLib(pg *postgres.Instance) *uint64 {
	if pm, ok := pg.Postmaster(); ok {
		return pm.Status.VmLibBytes
	}
	return nil
}

func loadedJIT(maps []linux.Mapping) bool {
	for _, mp := range maps {
		if strings.HasSuffix(mp.Path, "/llvmjit.so") {
			return true
		}
	}
	return false
}

// addSettingOnlyRoles adds the roles with a work_mem of their own that
// have no backend now: their sessions still run with it.
func addSettingOnlyRoles(m *budget.Measured, pg *postgres.Instance) {
	if pg.Work == nil {
		return
	}
	have := map[string]bool{}
	for _, r := range m.Roles {
		have[r.Name] = true
	}
	for _, rs := range pg.Work.RoleSettings {
		if v := pg.Work.RoleWorkMem(rs.Role); v != "" && !have[rs.Role] {
			have[rs.Role] = true
			b, _ := units.ParsePG(v, "kB")
			m.Roles = append(m.Roles, budget.RoleMeasure{Name: rs.Role, WorkMem: v, WorkMemBytes: b})
		}
	}
}
