package oomlog

import "github.com/dbmem/dbmem/internal/units"

// KillFacts are numbers about a kill that a report turns into words, e.g.
// "the kill freed almost nothing: 93% of the victim's RSS was shared
// memory". Each is nil when the figures it needs were not printed.
type KillFacts struct {
	// RSSBytes is anon + file (+ shmem when printed) RSS of the victim.
	RSSBytes *uint64
	// ShmemShare is ShmemRSSBytes / RSSBytes.
	ShmemShare *float64
	// FreedBytes estimates what the kill gave back: anonymous memory plus
	// page tables (when printed: FreedIncludesPgtables). Shared memory
	// stays allocated while another process maps it (PostgreSQL
	// shared_buffers), file pages were reclaimable anyway.
	FreedBytes            *uint64
	FreedIncludesPgtables bool
	// ShmemDominates is true when shared memory is more than half the RSS:
	// the badness score counted memory that killing this process cannot free.
	ShmemDominates bool
	// ReapedBytes is what the oom_reaper reports as gone (RSS before minus
	// RSS after), when both are known.
	ReapedBytes *uint64
}

// Facts returns the numbers about the victim; ok is false without a victim.
func (e Event) Facts() (f KillFacts, ok bool) {
	v := e.Victim
	if v == nil {
		return f, false
	}
	if v.AnonRSSBytes != nil && v.FileRSSBytes != nil {
		rss := *v.AnonRSSBytes + *v.FileRSSBytes + units.Deref(v.ShmemRSSBytes)
		f.RSSBytes = &rss
		if v.ShmemRSSBytes != nil && rss > 0 {
			share := float64(*v.ShmemRSSBytes) / float64(rss)
			f.ShmemShare, f.ShmemDominates = &share, share > 0.5
		}
	}
	if v.AnonRSSBytes != nil {
		freed := *v.AnonRSSBytes + units.Deref(v.PgtablesBytes)
		f.FreedBytes, f.FreedIncludesPgtables = &freed, v.PgtablesBytes != nil
	}
	if r := e.Reaped; r != nil && f.RSSBytes != nil {
		after := r.AnonRSSBytes + r.FileRSSBytes + units.Deref(r.ShmemRSSBytes)
		gone := uint64(0)
		if after < *f.RSSBytes {
			gone = *f.RSSBytes - after
		}
		f.ReapedBytes = &gone
	}
	return f, true
}

// TaskTotals sums task table rows; the optional columns sum only the rows
// that have them.
type TaskTotals struct {
	Count                                  int
	RSSBytes, RSSAnonBytes, RSSShmemBytes  uint64
	PgtablesBytes, SwapBytes, TotalVMBytes uint64
}

// TotalsByName sums the task table rows per process name. RSS sums count
// shared memory once per process that mapped it, so they over-count.
func (e Event) TotalsByName() map[string]TaskTotals {
	out := map[string]TaskTotals{}
	for _, t := range e.Tasks {
		s := out[t.Name]
		s.Count++
		s.RSSBytes += t.RSSBytes
		s.RSSAnonBytes += units.Deref(t.RSSAnonBytes)
		s.RSSShmemBytes += units.Deref(t.RSSShmemBytes)
		s.PgtablesBytes += units.Deref(t.PgtablesBytes)
		s.SwapBytes += units.Deref(t.SwapBytes)
		s.TotalVMBytes += t.TotalVMBytes
		out[t.Name] = s
	}
	return out
}

// VictimTask returns the victim's row of the task table, if present.
func (e Event) VictimTask() (Task, bool) {
	if e.Victim == nil {
		return Task{}, false
	}
	for _, t := range e.Tasks {
		if t.PID == e.Victim.PID {
			return t, true
		}
	}
	return Task{}, false
}
