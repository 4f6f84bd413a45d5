package watch

import (
	"sort"
	"time"

	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// topBy returns the first n of procs ordered by less, ties by PID.
func topBy(procs []Proc, n int, less func(a, b Proc) bool) []Proc {
	s := append([]Proc(nil), procs...)
	sort.SliceStable(s, func(i, j int) bool {
		if less(s[i], s[j]) {
			return true
		}
		if less(s[j], s[i]) {
			return false
		}
		return s[i].PID < s[j].PID
	})
	if len(s) > n {
		s = s[:n]
	}
	return s
}

// known keeps the processes for which ok holds: a top list ranks only
// numbers that were read.
func known(procs []Proc, ok func(Proc) bool) []Proc {
	var out []Proc
	for _, p := range procs {
		if ok(p) {
			out = append(out, p)
		}
	}
	return out
}

// findings marks each finding with when it was first seen; findings that
// disappear are forgotten, so one that comes back is new again.
func (w *Watcher) findings(s *sampler.Sample) []FindingSeen {
	now := s.Snapshot.TakenAt
	seen := map[string]time.Time{}
	var out []FindingSeen
	for _, f := range s.Findings {
		k := f.ID + "\x00" + f.Subject
		since, ok := w.seen[k]
		if !ok {
			since = now
		}
		seen[k] = since
		out = append(out, FindingSeen{Finding: f, Since: since, New: !ok && w.tick > 1})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Severity > out[j].Severity })
	w.seen = seen
	return out
}
