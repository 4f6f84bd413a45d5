package budget

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/units"
)

// baseLines are the lines that do not depend on work_mem.
func (b *pgBudget) baseLines() []Line {
	s := b.s
	b.processes = s.MaxConnections + s.AutovacuumMaxWorkers + s.MaxParallelWorkers + AuxProcesses + s.IOWorkers
	return append([]Line{b.baselineLine(), b.pageTableLine()}, b.fixed...)
}

// workCap is the largest work_mem the room left by the other lines holds
// for every active session and parallel worker.
func (b *pgBudget) workCap() (uint64, string) {
	fixed := sumOf(b.baseLines())
	room := units.Sub(b.r.LimitBytes, fixed)
	per := float64(b.active+b.parallel) * b.factor
	w := floorSetting(uint64(float64(room)/per), minWorkMem)
	f := fmt.Sprintf("(%s limit - %s other lines) / ((%d active sessions + %d parallel workers) x %s) = %s",
		units.Bytes(b.r.LimitBytes), units.Bytes(fixed), b.active, b.parallel, factorText(b.nodes, b.factor-float64(b.nodes-1)), units.PG(w))
	return w, f
}

// solveWorkMem sets work_mem: the cap on a what-if; on a live server the
// current value when it fits (raising it for every role would spend the
// budget where nothing spills: the roles that spill get their own), else
// the cap.
func (b *pgBudget) solveWorkMem() {
	cap, f := b.workCap()
	cur := b.s.WorkMemBytes
	set := Setting{Name: "work_mem", Current: units.PG(cur), Why: "each sort or hash node of each active query may use it (hash nodes x hash_mem_multiplier)"}
	switch {
	case b.in.Asked["work_mem"]:
		set.Value, set.Formula, set.Asked = units.PG(cur), units.PG(cur)+" (asked for); the budget allows "+units.PG(cap), true
		if cur > cap {
			b.r.Notes = append(b.r.Notes, fmt.Sprintf("work_mem %s was asked for; the budget allows %s: %s", units.PG(cur), units.PG(cap), f))
		}
	case b.in.Measured != nil && cur <= cap:
		set.Value, set.Formula = units.PG(cur), fmt.Sprintf("%s (kept: it fits; the budget allows up to %s: %s)", units.PG(cur), units.PG(cap), f)
	default:
		b.s.WorkMemBytes = cap
		set.Value, set.Formula = units.PG(cap), f
	}
	b.insertSetting(set, "hash_mem_multiplier")
}

// insertSetting puts s before the setting named before.
func (b *pgBudget) insertSetting(s Setting, before string) {
	for i, x := range b.r.Settings {
		if x.Name == before {
			b.r.Settings = append(b.r.Settings[:i], append([]Setting{s}, b.r.Settings[i:]...)...)
			return
		}
	}
	b.r.Settings = append(b.r.Settings, s)
}

// total adds the lines at the proposed settings.
func (b *pgBudget) total() {
	lines := b.baseLines()
	roleActive := 0
	var roleBytes uint64
	var roleF string
	for _, r := range b.roleLines {
		roleActive += r.active
		roleBytes += mulBytes(r.active, r.workMem, b.factor)
		roleF += fmt.Sprintf(" + %d x %s (%s)", r.active, units.PG(r.workMem), r.name)
	}
	general := max(b.active-roleActive, 0)
	ft := factorText(b.nodes, b.factor-float64(b.nodes-1))
	lines = append(lines, Line{Name: "work areas", Bytes: mulBytes(general, b.s.WorkMemBytes, b.factor),
		Formula: fmt.Sprintf("%d active sessions x %s work_mem x %s", general, units.PG(b.s.WorkMemBytes), ft)})
	if len(b.roleLines) > 0 {
		lines = append(lines, Line{Name: "roles' work areas", Bytes: roleBytes,
			Formula: fmt.Sprintf("(%s) x %s", roleF[3:], ft)})
	}
	lines = append(lines, Line{Name: "parallel workers", Bytes: mulBytes(b.parallel, b.s.WorkMemBytes, b.factor),
		Formula: fmt.Sprintf("%d max_parallel_workers x %s work_mem x %s", b.parallel, units.PG(b.s.WorkMemBytes), ft)})
	b.r.Lines, b.r.TotalBytes = lines, sumOf(lines)
	b.r.Fits = b.r.TotalBytes <= b.r.LimitBytes
	if !b.r.Fits {
		b.r.Notes = append(b.r.Notes, fmt.Sprintf("the budget does not fit: %s at the settings above exceeds the %s limit; fewer connections (a pooler) or more memory",
			units.Bytes(b.r.TotalBytes), units.Bytes(b.r.LimitBytes)))
	}
}
