package plan

import (
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
)

// guardSettings are the OOM guard's settings (advise.GuardSettings) the
// plan does not already hold. The service's MemoryHigh/MemoryMax come
// from its budget (serviceMemory).
func guardSettings(s *snapshot.Snapshot, in advise.PlanInput, have []finding.Setting) []finding.Setting {
	planned := map[string]bool{}
	for _, x := range have {
		planned[string(x.Target)+" "+x.Unit+" "+x.Name] = true
	}
	subjects := map[string]bool{}
	for _, pi := range in.Instances {
		if pi.NoUnit == "" { // no unit runs it: no drop-in for another unit (unit.go)
			subjects[pi.Subject] = true
		}
	}
	var out []finding.Setting
	for _, x := range advise.GuardSettingsFor(s, subjects) {
		if !planned[string(x.Target)+" "+x.Unit+" "+x.Name] {
			out = append(out, x)
		}
	}
	return out
}

// Result is the plan of in, with the OOM guard's settings of the host s
// reads (nil for a what-if).
func Result(in advise.PlanInput, s *snapshot.Snapshot) advise.PlanResult {
	res := advise.Plan(in)
	res.Settings = append(res.Settings, guardSettings(s, in, res.Settings)...)
	if s != nil {
		res.Settings = append(res.Settings, advise.ServiceMemorySettings(serviceBudgets(in, res, runningUnits(s)))...)
	}
	return res
}

// serviceBudgets is the memory the budgeted instance's service may hold on
// a running host: what the budget's limit starts from (RAM) less the huge
// page pool and the other processes' private memory, that is its private
// memory, its shared memory outside huge pages and its page cache. Only
// with a RAM-based limit (a cgroup limit bounds it already; under strict
// overcommit CommitLimit does), a trusted instance, and a systemd service
// the database was seen running in (never a guessed unit name).
func serviceBudgets(in advise.PlanInput, res advise.PlanResult, running map[string]bool) []advise.ServiceBudget {
	b := res.Budget
	if b == nil || b.LimitSource != budget.FromRAM || len(b.LimitLines) == 0 {
		return nil
	}
	var unit string
	for _, pi := range in.Instances {
		if pi.Subject == b.Subject && pi.Container == "" && pi.Untrusted == "" {
			unit = pi.Unit
		}
	}
	bytes, formula := b.LimitLines[0].Bytes, units.Bytes(b.LimitLines[0].Bytes)+" "+b.LimitLines[0].Name
	for _, l := range b.LimitLines[1:] {
		if l.Minus && (l.Name == "huge page pool" || strings.HasPrefix(l.Name, "co-hosted processes")) {
			bytes = max(bytes, l.Bytes) - l.Bytes
			formula += " - " + units.Bytes(l.Bytes) + " " + l.Name
		}
	}
	if !running[unit] || bytes == 0 {
		return nil
	}
	return []advise.ServiceBudget{{Unit: unit, Bytes: bytes,
		Formula: formula + " (its private memory, shared memory outside huge pages and page cache)"}}
}

// runningUnits are the systemd services the snapshot saw databases in
// (their cgroups).
func runningUnits(s *snapshot.Snapshot) map[string]bool {
	out := map[string]bool{}
	for _, c := range s.Cgroups {
		if c.Unit != "" {
			out[c.Unit] = true
		}
	}
	for _, m := range s.MySQL {
		if m.Cgroup != nil && m.Cgroup.Unit != "" {
			out[m.Cgroup.Unit] = true
		}
	}
	return out
}
