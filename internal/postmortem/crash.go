package postmortem

import (
	"fmt"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/dblog"
)

// explainCrash describes the restart that followed a kill at killAt (zero
// when unknown or unpaired).
func explainCrash(c crashRef, p dblog.Pair, killAt time.Time, loc *time.Location) Crash {
	x := Crash{Engine: c.Engine, Instance: c.Instance, Source: c.Source, TimeRaw: c.TimeRaw, ZoneKnown: c.ZoneKnown,
		Process: c.Process, KilledPID: c.KilledPID, ServerPID: c.ServerPID, Signal: c.Signal, Query: c.Query,
		SessionsTerminated: c.SessionsTerminated, MatchedBy: string(p.By), Certain: p.Certain, Shift: p.Shift, Delta: p.Delta,
		NoRestart: c.NoRestart, Incomplete: c.Incomplete, IncompleteReason: c.IncompleteReason}
	if !c.Time.IsZero() {
		x.Time = c.Time.In(loc)
	}
	x.Guess = guess(p, c)
	base := c.Time
	if !killAt.IsZero() && p.By != "" {
		base = killAt.Add(p.Shift) // the kill, on the database log's clock
	}
	x.Steps = steps(c.CrashRestart, base, loc)
	if !c.ReadyAt.IsZero() && !base.IsZero() {
		x.Downtime = c.ReadyAt.Sub(base)
	}
	x.Recovery = c.RecoveryDuration()
	return x
}

// guess says why a pairing is not certain, or "" when it is.
func guess(p dblog.Pair, c crashRef) string {
	switch p.By {
	case dblog.ByTime:
		return fmt.Sprintf("a guess: no PID in common (the log names PID %d); paired because the crash was logged %s after the kill",
			c.KilledPID, signedDur(p.Delta))
	case dblog.ByShiftedTime:
		return fmt.Sprintf("a guess: paired by time with the two clocks %s apart; one log's time zone was probably read wrong", signedDur(p.Shift))
	}
	return ""
}

// steps lists the restart's milestones with their delay after base.
func steps(c dblog.CrashRestart, base time.Time, loc *time.Location) []Step {
	var out []Step
	add := func(what string, t time.Time) {
		if t.IsZero() {
			return
		}
		s := Step{What: what, At: t.In(loc)}
		if !base.IsZero() {
			s.After = t.Sub(base)
		}
		out = append(out, s)
	}
	first := "the postmaster logged the death of PID " + fmt.Sprint(c.KilledPID)
	if c.Engine == "mysql" {
		first = "a new server instance started (the killed one logged nothing)"
	}
	add(first, c.Time)
	add("terminating every other server process", c.TerminatingAt)
	add("all server processes gone: reinitializing", c.ReinitializedAt)
	add("crash recovery started", c.RecoveryAt)
	add("redo started", c.RedoStartAt)
	add("redo done", c.RedoDoneAt)
	add("ready to accept connections", c.ReadyAt)
	return out
}

// signedDur prints a duration rounded for people, with its sign.
func signedDur(d time.Duration) string {
	if d < 0 {
		return "-" + shortDur(-d)
	}
	return shortDur(d)
}

// shortDur prints 0.23 s, 12 s, 3 min 5 s, 2 h 10 min.
func shortDur(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", d.Seconds()), "0"), ".") + " s"
	case d < time.Minute:
		return fmt.Sprintf("%.0f s", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
	}
	if m := int(d.Minutes()) % 60; m != 0 {
		return fmt.Sprintf("%d h %d min", int(d.Hours()), m)
	}
	return fmt.Sprintf("%d h", int(d.Hours()))
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
