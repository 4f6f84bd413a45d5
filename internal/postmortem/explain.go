package postmortem

import (
	"slices"
	"sort"
	"time"

	"github.com/dbmem/dbmem/internal/dblog"
	"github.com/dbmem/dbmem/internal/oomlog"
)

// topTasks is how many task table rows an explanation lists.
const topTasks = 5

// explain turns one kill (and the crash paired with it) into an Explained.
func explain(k kill, pc *crashRef, pair *dblog.Pair, r roles, loc *time.Location) Explained {
	x := Explained{TimeRaw: k.Time.Raw, ZoneKnown: k.Time.ZoneKnown, Sources: k.Sources,
		Incomplete: k.Incomplete, IncompleteReason: k.IncompleteReason, TaskCount: len(k.Tasks)}
	if !k.Time.Wall.IsZero() {
		x.Time = k.Time.Wall.In(loc)
	}
	x.Scope = Scope{Constraint: string(k.Constraint), Inferred: k.ConstraintInferred, Cgroup: k.OOMMemcg, TaskCgroup: k.TaskMemcg}
	if m := k.Memcg; m != nil {
		x.Scope.LimitBytes, x.Scope.UsageBytes = m.LimitBytes, m.UsageBytes
	}
	at := k.Time.Wall
	if t := k.Trigger; t != nil {
		x.Trigger = &Task{PID: t.PID, Name: t.Name, OOMScoreAdj: t.OOMScoreAdj}
		x.Trigger.Role, x.Trigger.RoleFrom, x.Trigger.Instance = r.of(t.PID, t.Name, at, pc)
	}
	x.Victim = victimOf(k.Event, r, pc)
	x.Tasks = topRows(k.Event, r, pc)
	x.TaskSplit = slices.Contains(k.TaskColumns, "rss_anon")
	if pc != nil {
		c := explainCrash(*pc, *pair, k.Time.Wall, loc)
		x.Crash = &c
	}
	x.KillLine = killLine(k.Event)
	x.Notes = notes(x, k.Event)
	return x
}

func victimOf(e oomlog.Event, r roles, pc *crashRef) Victim {
	var v Victim
	ev := e.Victim
	if ev == nil {
		return v
	}
	v.PID, v.Name, v.TotalVMBytes = ev.PID, ev.Name, ev.TotalVMBytes
	v.AnonBytes, v.FileBytes, v.ShmemBytes, v.PgtablesBytes = ev.AnonRSSBytes, ev.FileRSSBytes, ev.ShmemRSSBytes, ev.PgtablesBytes
	v.HasShmem, v.AlreadyExiting, v.Victim = ev.HasShmemRSS, ev.AlreadyExiting, true
	v.OOMScoreAdj, v.HasOOMScoreAdj = ev.OOMScoreAdj, ev.HasOOMScoreAdj
	if ev.HasUID {
		uid := ev.UID
		v.UID = &uid
	}
	if row, ok := e.VictimTask(); ok {
		v.SwapBytes = row.SwapBytes
		if !ev.HasOOMScoreAdj {
			v.OOMScoreAdj, v.HasOOMScoreAdj = row.OOMScoreAdj, true
		}
		if !ev.HasPgtables {
			v.PgtablesBytes = row.PgtablesBytes
		}
	}
	if f, ok := e.Facts(); ok {
		v.RSSBytes, v.ShmemShare, v.ShmemDominates = f.RSSBytes, f.ShmemShare, f.ShmemDominates
		v.FreedBytes = v.AnonBytes + v.PgtablesBytes
		if f.HasReaped {
			b := f.ReapedBytes
			v.ReapedBytes = &b
		}
	}
	v.Role, v.RoleFrom, v.Instance = r.of(v.PID, v.Name, e.Time.Wall, pc)
	return v
}

// topRows returns the task table's largest rows by RSS.
func topRows(e oomlog.Event, r roles, pc *crashRef) []Task {
	rows := append([]oomlog.Task(nil), e.Tasks...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].RSSBytes > rows[j].RSSBytes })
	if len(rows) > topTasks {
		rows = rows[:topTasks]
	}
	out := make([]Task, 0, len(rows))
	for _, t := range rows {
		x := Task{PID: t.PID, Name: t.Name, RSSBytes: t.RSSBytes, AnonBytes: t.RSSAnonBytes, ShmemBytes: t.RSSShmemBytes,
			PgtablesBytes: t.PgtablesBytes, SwapBytes: t.SwapBytes, OOMScoreAdj: t.OOMScoreAdj}
		x.Victim = e.Victim != nil && t.PID == e.Victim.PID
		x.Role, x.RoleFrom, x.Instance = r.of(t.PID, t.Name, e.Time.Wall, pc)
		out = append(out, x)
	}
	return out
}

// killLine returns the raw line that names the victim.
func killLine(e oomlog.Event) string {
	if e.Victim == nil {
		return ""
	}
	for _, l := range e.Lines {
		if containsAll(l, "Killed process", e.Victim.Name) || containsAll(l, "OOM victim", e.Victim.Name) {
			return l
		}
	}
	return ""
}
