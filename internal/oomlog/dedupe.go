package oomlog

import (
	"cmp"
	"time"
)

// dedupeWindow is how far apart two copies of one report may be stamped.
const dedupeWindow = 2 * time.Second

// dedupe merges events that are the same kill: a log that holds a report
// twice (kern.log and messages concatenated, a journal and a syslog copy).
// The first copy is kept and its missing parts are filled from the second.
func dedupe(events []Event) []Event {
	var out []Event
	for _, e := range events {
		if i := findCopy(out, e); i >= 0 {
			out[i] = merge(out[i], e)
			continue
		}
		out = append(out, e)
	}
	return out
}

// findCopy returns the index of an earlier event with the same victim
// stamped within dedupeWindow, looking back a few events only.
func findCopy(out []Event, e Event) int {
	if e.Victim == nil {
		return -1
	}
	for i := len(out) - 1; i >= 0 && i >= len(out)-8; i-- {
		o := out[i]
		if o.Victim == nil || o.Victim.PID != e.Victim.PID || o.Victim.Name != e.Victim.Name {
			continue
		}
		if d, ok := gap(o.Time, e.Time); !ok || d <= dedupeWindow {
			return i
		}
	}
	return -1
}

// merge fills what a is missing from b.
func merge(a, b Event) Event {
	if a.Trigger == nil {
		a.Trigger = b.Trigger
	}
	if b.Constraint != ConstraintUnknown && constraintRank[b.ConstraintFrom] > constraintRank[a.ConstraintFrom] {
		a.Constraint, a.ConstraintInferred, a.ConstraintFrom = b.Constraint, b.ConstraintInferred, b.ConstraintFrom
	}
	if a.MemInfo == nil {
		a.MemInfo = b.MemInfo
	}
	if a.Summary == nil {
		a.Summary = b.Summary
	}
	a.KernelRelease = cmp.Or(a.KernelRelease, b.KernelRelease)
	a.OOMMemcg = cmp.Or(a.OOMMemcg, b.OOMMemcg)
	a.TaskMemcg = cmp.Or(a.TaskMemcg, b.TaskMemcg)
	a.Cpuset = cmp.Or(a.Cpuset, b.Cpuset)
	a.MemsAllowed = cmp.Or(a.MemsAllowed, b.MemsAllowed)
	if a.Memcg == nil {
		a.Memcg = b.Memcg
	}
	if a.Selected == nil {
		a.Selected = b.Selected
	}
	if len(b.Tasks) > len(a.Tasks) {
		a.Tasks, a.TaskColumns = b.Tasks, b.TaskColumns
	}
	if a.Reaped == nil {
		a.Reaped = b.Reaped
	}
	if a.Incomplete && !b.Incomplete {
		a.Victim, a.VictimFrom, a.Incomplete, a.IncompleteReason = b.Victim, b.VictimFrom, false, ""
	}
	a.Lines = append(a.Lines, b.Lines...)
	return a
}
