package dblog

import (
	"sort"
	"time"

	"github.com/dbmem/dbmem/internal/oomlog"
)

// By says how a kill and a crash were paired.
type By string

// Ways of pairing, from certain to guessed.
const (
	// ByPID: the kernel killed the PID the database reports as terminated.
	ByPID By = "pid"
	// ByTime: no PID in common, but the crash follows the kill within the
	// tolerance.
	ByTime By = "time"
	// ByShiftedTime: the two are a whole number of half hours apart, give
	// or take the tolerance: one clock was most likely read in the wrong
	// zone. Shift says by how much.
	ByShiftedTime By = "time-shifted"
)

// Pair links kernel event Kernel (index into the kernel events) with crash
// Crash (index into the crashes).
type Pair struct {
	Kernel, Crash int
	By            By
	// Certain is true for a PID match; time matches are guesses.
	Certain bool
	// Shift is the clock offset assumed (crash clock minus kernel clock,
	// a multiple of 30 minutes); Delta the remaining difference, crash time
	// minus kill time. Both are 0 when either time is unknown.
	Shift, Delta time.Duration
}

// pidWindow bounds how far apart (after a zone shift) a PID match may be:
// PIDs are reused, quickly on hosts with pid_max 32768.
const pidWindow = 10 * time.Minute

// Match pairs OOM kills with crash restarts, each used at most once.
//
// Times are compared as absolute instants, so a PostgreSQL log in CET and a
// kernel log in UTC pair correctly as long as each side's zone was read:
// PostgreSQL stamps carry their zone (abbreviation or offset; Options.Location
// for ambiguous ones), kernel stamps need oomlog.Options.Location for syslog
// and dmesg -T times, and oomlog.SetBootTime for dmesg [seconds] stamps.
// Kernel events without a wall time can only be paired by PID.
//
// First PIDs: a crash whose KilledPID is a victim's PID pairs with it if
// their times are unknown or within pidWindow of a whole number of half
// hours apart. Then time: the closest kill within tolerance of the crash.
// Last, time-shifted: the closest kill whose distance is within tolerance
// of a non-zero multiple of 30 minutes (up to 14 h), reported with Shift,
// for logs whose zone was misread.
func Match(kernel []oomlog.Event, crashes []CrashRestart, tolerance time.Duration) []Pair {
	m := matcher{kernel: kernel, crashes: crashes, usedK: map[int]bool{}, usedC: map[int]bool{}}
	m.byPID()
	m.byTime(tolerance, false)
	m.byTime(tolerance, true)
	sort.Slice(m.pairs, func(i, j int) bool { return m.pairs[i].Crash < m.pairs[j].Crash })
	return m.pairs
}

type matcher struct {
	kernel       []oomlog.Event
	crashes      []CrashRestart
	usedK, usedC map[int]bool
	pairs        []Pair
}

func (m *matcher) byPID() {
	for ci, c := range m.crashes {
		best, bestDelta := -1, time.Duration(1<<62)
		var bestShift time.Duration
		for ki, e := range m.kernel {
			if m.usedK[ki] || e.Victim == nil || c.KilledPID == nil || e.Victim.PID != *c.KilledPID {
				continue
			}
			shift, delta, timed := offset(e, c)
			if timed && delta.Abs() > pidWindow {
				continue
			}
			if delta.Abs() < bestDelta.Abs() {
				best, bestDelta, bestShift = ki, delta, shift
			}
		}
		if best >= 0 {
			m.add(Pair{Kernel: best, Crash: ci, By: ByPID, Certain: true, Shift: bestShift, Delta: bestDelta})
		}
	}
}

// byTime pairs what is left by closest time; shifted allows zone offsets.
func (m *matcher) byTime(tol time.Duration, shifted bool) {
	var cands []Pair
	for ci, c := range m.crashes {
		for ki, e := range m.kernel {
			if m.usedC[ci] || m.usedK[ki] || e.Victim == nil {
				continue
			}
			shift, delta, timed := offset(e, c)
			if !shifted {
				shift, delta = 0, shift+delta
			}
			if !timed || delta.Abs() > tol || (shifted && shift == 0) {
				continue
			}
			by := ByTime
			if shifted {
				by = ByShiftedTime
			}
			cands = append(cands, Pair{Kernel: ki, Crash: ci, By: by, Shift: shift, Delta: delta})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].Delta.Abs() < cands[j].Delta.Abs() })
	for _, p := range cands {
		if !m.usedC[p.Crash] && !m.usedK[p.Kernel] {
			m.add(p)
		}
	}
}

func (m *matcher) add(p Pair) {
	m.usedK[p.Kernel], m.usedC[p.Crash] = true, true
	m.pairs = append(m.pairs, p)
}

// offset splits crash time minus kill time into a multiple of 30 minutes
// (up to 14 h) and a remainder in (-15 min, 15 min]. timed is false when
// either time is unknown.
func offset(e oomlog.Event, c CrashRestart) (shift, delta time.Duration, timed bool) {
	kt := e.Time.Wall
	if kt.IsZero() || c.Time.IsZero() {
		return 0, 0, false
	}
	d := c.Time.Sub(kt)
	const half = 30 * time.Minute
	shift = d.Round(half)
	if shift.Abs() > 14*time.Hour {
		return 0, d, true
	}
	return shift, d - shift, true
}
