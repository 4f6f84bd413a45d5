package advise

import (
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/units"
)

// planBudgets budgets the PostgreSQL instance of the plan with the host's
// limits as the plan leaves them (the planned pool, the planned
// CommitLimit), adds the budget's settings and returns the instances with
// their workload at the budget's settings, so that the worst case is the
// planned one. With several PostgreSQL instances each needs its own plan
// (--pg-port): none is budgeted.
func planBudgets(in PlanInput, hp *HugePagePlan, r *PlanResult) []PlannedInstance {
	var idx []int
	for i, pi := range in.Instances {
		if pi.Budget != nil && pi.MySQL == nil {
			idx = append(idx, i)
		}
	}
	if len(idx) != 1 {
		if len(idx) > 1 {
			r.Notes = append(r.Notes, fmt.Sprintf("%d PostgreSQL instances: the budget of each needs a plan of its own (dbmem plan --pg-port N)", len(idx)))
		}
		return in.Instances
	}
	out := append([]PlannedInstance(nil), in.Instances...)
	pi := &out[idx[0]]
	bi := *pi.Budget
	bi.Host = budgetHost(in, *pi, hp, r, bi.Host)
	res := budget.Postgres(bi)
	r.Settings = append(r.Settings, budgetSettings(in, *pi, res)...)
	pi.Work = budgetWorkload(pi.Work, res)
	if pi.NoHuge != "" {
		hp = nil
	}
	res.WorstCase = planWorstCase(res, postgresWorstCase(*pi, hp), pi.Work.MaxConnections)
	r.Budget = &res
	return out
}

// planWorstCase is the plan's worst case (WORST CASE, memory.worst_case)
// beside the budget: private memory and page tables.
func planWorstCase(res budget.Result, wc WorstCase, conns int) budget.WorstCase {
	b := wc.PrivateBytes + wc.PageTablesBytes
	f := ""
	for _, l := range wc.Lines {
		if l.Name == "shared memory" {
			continue
		}
		if f != "" {
			f += " + "
		}
		f += fmt.Sprintf("%s %s (%s)", units.Bytes(l.Bytes), l.Name, l.Formula)
	}
	return budget.WorstCase{Bytes: b, Formula: f + " = " + units.Bytes(b), Why: budget.WorstCaseWhy(res, b, conns)}
}

// budgetHost completes the host facts the plan decides: the pools after
// it, whether the instance's shared memory is in them, the CommitLimit
// (planned, else the current one under strict overcommit), the reserve.
func budgetHost(in PlanInput, pi PlannedInstance, hp *HugePagePlan, r *PlanResult, h budget.Host) budget.Host {
	if h.RAMBytes == 0 {
		h.RAMBytes = in.Host.RAMBytes
	}
	h.HugePoolBytes, _ = poolsAfter(in, hp)
	h.SharedBytes = pi.Need.SharedBytes
	if h.SharedBytes == 0 {
		h.SharedBytes = pi.Work.SharedBytes
	}
	h.SharedInHugePages = hp != nil && pi.NoHuge == ""
	h.Reserve = in.Options.Reserve
	switch now := in.Host.Now; {
	case r.Overcommit != nil:
		h.CommitLimitBytes, h.CommitFrom = &r.Overcommit.CommitLimitBytes, "planned"
	case now != nil && now.Sysctls["vm.overcommit_memory"] == "2" && now.CommitLimitBytes != nil:
		h.CommitLimitBytes, h.CommitFrom = now.CommitLimitBytes, "now"
	}
	return h
}

// budgetSettings are the budget's settings as the plan's: on a what-if
// every one (the configuration planned), on a running server those that
// change; per-role work_mem as TargetPostgresRole.
func budgetSettings(in PlanInput, pi PlannedInstance, res budget.Result) (out []finding.Setting) {
	defer func() { out = forInstance(pi, out) }()
	whatIf := in.Host.Now == nil
	for _, s := range res.Settings {
		if s.Asked || !whatIf && s.Value == s.Current { // asked for: the plan has it already
			continue
		}
		x := pgSetting(pi.Unit, s.Name, s.Value, pi.Current[s.Name], s.Formula, s.Why)
		if !whatIf {
			x.Current = s.Current
		}
		if !s.Restart {
			x.Restart = ""
		}
		for _, e := range s.Evidence {
			x.Evidence = append(x.Evidence, finding.Evidence(e))
		}
		out = append(out, x)
	}
	for _, role := range res.Roles {
		if role.Proposed != "" {
			out = append(out, finding.Setting{Target: finding.TargetPostgresRole, Name: "work_mem", Value: role.Proposed, Current: role.Current,
				Role: role.Name, Unit: pi.Unit, Formula: role.Formula, Why: role.Why})
		}
	}
	return out
}

// budgetWorkload is the workload at the budget's settings: the worst case
// of every connection at the largest work_mem any role gets.
func budgetWorkload(w Workload, res budget.Result) Workload {
	get := func(name string) string {
		s, _ := res.Setting(name)
		return s.Value
	}
	if n, err := strconv.Atoi(get("max_connections")); err == nil {
		w.MaxConnections = n
		w.learned("max_connections")
	}
	if n, err := strconv.Atoi(get("max_parallel_workers")); err == nil {
		w.ParallelWorkers = n
		w.learned("max_parallel_workers")
	}
	w.JIT = get("jit") == "on" // the budget decides jit
	w.learned("jit")
	wm := budgetBytes(get("work_mem"))
	for _, r := range res.Roles {
		wm = max(wm, budgetBytes(r.Proposed), budgetBytes(r.Current))
	}
	if wm > 0 {
		w.WorkMemBytes = wm
		w.learned("work_mem")
	}
	if av := budgetBytes(get("autovacuum_work_mem")); av > 0 {
		w.AutovacuumMemBytes = av
		w.learned("maintenance_work_mem")
	}
	return w
}

// budgetBytes reads the budget's own spelling of a size ("4MB", "64kB").
func budgetBytes(v string) uint64 {
	b, _ := units.ParsePG(v, "")
	return b
}
