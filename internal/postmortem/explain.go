package postmortem

import (
	"sort"
	"time"

	"github.com/dbmem/dbmem/internal/dblog"
	"github.com/dbmem/dbmem/internal/oomlog"
)

// topTasks is how many task table rows an explanation lists.
const topTasks = 5

// explain turns one kill (and the crash paired with it) into an Explained.
func explain(k kill, pc *crashRef, pair *dblog.Pair, r roles, loc *time.Location) Explained {
	x := Explained{TimeRaw: k.Time.Raw, ZoneKnown: k.Time.ZoneKnown, YearFrom: k.YearFrom, Sources: k.Sources,
		Incomplete: k.Incomplete, IncompleteReason: k.IncompleteReason, TaskCount: len(k.Tasks),
		FromThisHost: k.ThisHost, Origin: k.Origin, Host: k.Host, KernelRelease: k.KernelRelease}
	x.Time = timeIn(k.Time.Wall, loc)
	x.Scope = scopeOf(k.Event)
	x.Trigger = triggerOf(k.Event, r, pc)
	x.Victim = victimOf(k.Event, r, pc)
	if s := k.Selected; s != nil {
		x.Selected = &Selected{PID: s.PID, Name: s.Name, Score: s.Score}
	}
	x.Tasks = topRows(k.Event, r, pc)
	x.Machine = machineOf(k.MemInfo)
	if pc != nil {
		c := explainCrash(*pc, *pair, k.Time.Wall, loc)
		x.Crash = &c
	}
	x.KillLine = killLine(k.Event)
	x.Headline = headline(x.Machine)
	x.Notes = notes(x, k.Event)
	return x
}

func scopeOf(e oomlog.Event) Scope {
	s := Scope{Constraint: string(e.Constraint), From: e.ConstraintFrom, Inferred: e.ConstraintInferred,
		Cgroup: e.OOMMemcg, TaskCgroup: e.TaskMemcg}
	if m := e.Memcg; m != nil {
		s.LimitBytes, s.UsageBytes, s.LimitUnlimited = oomlog.U64(m.LimitBytes), oomlog.U64(m.UsageBytes), m.LimitUnlimited
	}
	return s
}

func triggerOf(e oomlog.Event, r roles, pc *crashRef) *Trigger {
	t := e.Trigger
	if t == nil {
		return nil
	}
	x := &Trigger{PID: t.PID, Name: t.Name, UID: t.UID, OOMScoreAdj: t.OOMScoreAdj, GFPMask: t.GFPMask, Order: t.Order}
	if t.PID != nil {
		x.Role, x.RoleFrom, x.Instance = r.of(*t.PID, t.Name, e.Time.Wall, pc)
	}
	return x
}

func victimOf(e oomlog.Event, r roles, pc *crashRef) *Victim {
	ev := e.Victim
	if ev == nil {
		return nil
	}
	v := &Victim{PID: ev.PID, Name: ev.Name, NamedBy: e.VictimFrom, UID: ev.UID, TotalVMBytes: ev.TotalVMBytes,
		AnonBytes: ev.AnonRSSBytes, FileBytes: ev.FileRSSBytes, ShmemBytes: ev.ShmemRSSBytes, PgtablesBytes: ev.PgtablesBytes,
		OOMScoreAdj: ev.OOMScoreAdj, AlreadyExiting: ev.AlreadyExiting}
	if s := e.Selected; s != nil && s.PID != ev.PID {
		v.SelectedPID = &s.PID
	}
	if row, ok := e.VictimTask(); ok {
		v.SwapBytes = row.SwapBytes
		if v.OOMScoreAdj == nil {
			v.OOMScoreAdj = row.OOMScoreAdj
		}
		if v.PgtablesBytes == nil {
			v.PgtablesBytes = row.PgtablesBytes
		}
		if v.UID == nil {
			v.UID = oomlog.Int(row.UID)
		}
	}
	facts(v, e)
	v.Role, v.RoleFrom, v.Instance = r.of(v.PID, v.Name, e.Time.Wall, pc)
	return v
}

// facts fills the derived figures, from the kill line and the task row.
func facts(v *Victim, e oomlog.Event) {
	ev := *e.Victim
	ev.PgtablesBytes = v.PgtablesBytes
	e.Victim = &ev
	f, _ := e.Facts()
	v.RSSBytes, v.ShmemShare, v.ShmemDominates = f.RSSBytes, f.ShmemShare, f.ShmemDominates
	v.FreedBytes, v.FreedIncludesPgtables, v.ReapedBytes = f.FreedBytes, f.FreedIncludesPgtables, f.ReapedBytes
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
		x := Task{PID: t.PID, Name: t.Name, UID: t.UID, RSSBytes: t.RSSBytes, AnonBytes: t.RSSAnonBytes, ShmemBytes: t.RSSShmemBytes,
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
	if e.VictimFrom == oomlog.VictimFromSummary {
		for _, l := range e.Lines {
			if containsAll(l, "oom-kill:", "pid=") {
				return l
			}
		}
	}
	return ""
}
