package oomlog

// KillFacts are numbers about a kill that a report turns into words, e.g.
// "the kill freed almost nothing: 93% of the victim's RSS was shared memory".
type KillFacts struct {
	// RSSBytes is anon + file + shmem RSS of the victim.
	RSSBytes uint64
	// ShmemShare is ShmemRSSBytes / RSSBytes (0 when RSS is 0).
	ShmemShare float64
	// FreedBytes estimates what the kill gave back: anonymous memory plus
	// page tables. Shared memory stays allocated while another process maps
	// it (PostgreSQL shared_buffers), file pages were reclaimable anyway.
	FreedBytes uint64
	// ShmemDominates is true when shared memory is more than half the RSS:
	// the badness score counted memory that killing this process cannot free.
	ShmemDominates bool
	// ReapedBytes is what the oom_reaper reports as gone (RSS before minus
	// RSS after); HasReaped tells whether a reaper line was printed.
	ReapedBytes uint64
	HasReaped   bool
}

// Facts returns the numbers about the victim; ok is false without a victim.
func (e Event) Facts() (f KillFacts, ok bool) {
	v := e.Victim
	if v == nil {
		return f, false
	}
	f.RSSBytes = v.AnonRSSBytes + v.FileRSSBytes + v.ShmemRSSBytes
	if f.RSSBytes > 0 {
		f.ShmemShare = float64(v.ShmemRSSBytes) / float64(f.RSSBytes)
	}
	f.FreedBytes = v.AnonRSSBytes + v.PgtablesBytes
	f.ShmemDominates = f.ShmemShare > 0.5
	if r := e.Reaped; r != nil {
		after := r.AnonRSSBytes + r.FileRSSBytes + r.ShmemRSSBytes
		f.HasReaped = true
		if after < f.RSSBytes {
			f.ReapedBytes = f.RSSBytes - after
		}
	}
	return f, true
}

// TaskTotals sums task table rows.
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
		s.RSSAnonBytes += t.RSSAnonBytes
		s.RSSShmemBytes += t.RSSShmemBytes
		s.PgtablesBytes += t.PgtablesBytes
		s.SwapBytes += t.SwapBytes
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
