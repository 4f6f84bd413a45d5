package plan

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/history"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
)

// Measure is what a running instance shows the budget: its client
// backends' private cost (overall and per role), the active sessions,
// the parallel and autovacuum workers running, JIT's cost where backends
// compiled, the spills (pg_stat_statements, pg_stat_database, the server
// log's temporary file lines) and, with a `watch --record` file, the peak
// connections it recorded.
func Measure(fs linux.FS, pg *postgres.Instance, historyPath string) *budget.Measured {
	m := &budget.Measured{ActiveFrom: "pg_stat_activity when dbmem connected"}
	if !pg.Connected {
		m.ActiveFrom = "process titles (not connected)"
		m.Gaps = append(m.Gaps, budget.Gap{What: "spills, roles' own settings", Why: "not connected: " + pg.Connection,
			Fix: "let dbmem connect (see docs/connections.md)"})
	}
	measureBackends(m, pg)
	if on, _ := pg.Settings.Bool("jit"); on {
		m.JIT = measureJIT(fs, pg, m)
	}
	measureSpills(m, fs, pg)
	if historyPath != "" {
		measureHistory(m, pg, historyPath)
	}
	return m
}

// measureBackends: the baseline (Pss_Anon + swap; VmPTE apart) of the
// client backends, per role, the active ones, and the workers running.
func measureBackends(m *budget.Measured, pg *postgres.Instance) {
	var all, ptes []uint64
	byRole := map[string][]uint64{}
	active := map[string]int{}
	for _, p := range pg.Processes {
		switch p.Role {
		case postgres.RoleParallel:
			m.ParallelSeen++
		case postgres.RoleAVWorker:
			m.AutovacuumSeen++
		case postgres.RoleClient:
			if p.State == "active" {
				m.ActiveNow++
				active[p.User]++
			}
			c, _, ok := p.PrivateCost()
			if !ok {
				continue
			}
			pte := *p.Status.VmPTEBytes // known: PrivateCost needs it
			all, ptes = append(all, c-pte), append(ptes, pte)
			byRole[p.User] = append(byRole[p.User], c-pte)
		}
	}
	m.Backends = len(all)
	if len(all) > 0 {
		m.BaselineMedianBytes, m.BaselineP95Bytes = postgres.Percentile(all, 50), postgres.Percentile(all, 95)
		m.PageTablesP95Bytes = postgres.Percentile(ptes, 95)
	}
	for role, v := range byRole {
		rm := budget.RoleMeasure{Name: role, Backends: len(v), MedianBytes: postgres.Percentile(v, 50), P95Bytes: postgres.Percentile(v, 95), Active: active[role]}
		rm.WorkMem = pg.Work.RoleWorkMem(role)
		rm.WorkMemBytes, _ = postgres.ParseMemory(rm.WorkMem, "kB")
		m.Roles = append(m.Roles, rm)
	}
	addSettingOnlyRoles(m, pg)
	sort.Slice(m.Roles, func(i, j int) bool { return m.Roles[i].Name < m.Roles[j].Name })
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
			b, _ := postgres.ParseMemory(v, "kB")
			m.Roles = append(m.Roles, budget.RoleMeasure{Name: rs.Role, WorkMem: v, WorkMemBytes: b})
		}
	}
}

// measureJIT compares the client backends that loaded llvmjit.so (they
// JIT-compiled a query) with those that did not. Only a backend whose
// executable mappings grew since the fork (VmLib beyond the postmaster's)
// can have loaded it: the others' maps are not read, which at 200 idle
// backends saved 70-120 ms of dbmem report (docs/performance.md).
func measureJIT(fs linux.FS, pg *postgres.Instance, m *budget.Measured) *budget.JITMeasure {
	var with, without []uint64
	base := postmasterLib(pg)
	for _, p := range pg.Processes {
		c, _, ok := p.PrivateCost()
		if p.Role != postgres.RoleClient || !ok {
			continue
		}
		if lib := p.Status.VmLibBytes; base != nil && lib != nil && *lib == *base {
			without = append(without, c) // no library loaded since the fork
			continue
		}
		maps, err := linux.ReadMaps(fs, p.PID)
		if err != nil {
			continue
		}
		if loadedJIT(maps) {
			with = append(with, c)
		} else {
			without = append(without, c)
		}
	}
	if len(with) == 0 || len(without) == 0 {
		why := "no client backend had JIT-compiled a query"
		if len(with) > 0 {
			why = "every client backend had JIT-compiled: none to compare with"
		}
		m.Gaps = append(m.Gaps, budget.Gap{What: "JIT's cost", Why: why + ": the cost measured on PostgreSQL 15 is used"})
		return nil
	}
	a, b := postgres.Percentile(with, 50), postgres.Percentile(without, 50)
	if a <= b {
		return nil
	}
	return &budget.JITMeasure{Compiled: len(with), CostBytes: a - b,
		Formula: fmt.Sprintf("median %s of %d backends with llvmjit.so - median %s of %d without", units.Bytes(a), len(with), units.Bytes(b), len(without))}
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

// measureHistory reads the most connections `watch --record` recorded.
func measureHistory(m *budget.Measured, pg *postgres.Instance, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h, err := history.Load(ctx, path, time.Time{}, time.Time{})
	if err != nil {
		m.Gaps = append(m.Gaps, budget.Gap{What: "history " + path, Why: err.Error()})
		return
	}
	port := pg.Port
	s, ok := h.Find("connections", history.InstanceLabels(&port, pg.DataDir))
	if !ok || len(s.Points) == 0 {
		m.Gaps = append(m.Gaps, budget.Gap{What: "history " + path, Why: "no connections recorded for this instance"})
		return
	}
	peak := 0
	for _, p := range s.Points {
		peak = max(peak, int(p.Value))
	}
	m.HistoryPeakConnections = &peak
	m.HistoryFrom = fmt.Sprintf("%s, %d samples %s to %s", path, len(s.Points), s.Points[0].At.Format(time.DateTime), s.Points[len(s.Points)-1].At.Format(time.DateTime))
	if a, ok := h.Find("active_sessions", history.InstanceLabels(&port, pg.DataDir)); ok && len(a.Points) > 0 {
		active := 0
		for _, p := range a.Points {
			active = max(active, int(p.Value))
		}
		m.HistoryPeakActive = &active
		m.HistoryActiveFrom = fmt.Sprintf("%s, %d samples of pg_stat_activity", path, len(a.Points))
	}
}
