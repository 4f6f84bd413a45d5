package postmortem

import (
	"fmt"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/dblog"
)

// Crash is what the database log says happened next. Figures the log did
// not give are null.
type Crash struct {
	Engine    string     `json:"engine"`
	Instance  string     `json:"instance,omitempty"`
	Source    string     `json:"source"`
	Time      *time.Time `json:"time"`
	TimeRaw   string     `json:"time_raw"`
	ZoneKnown bool       `json:"zone_known"`
	Process   string     `json:"process,omitempty"`
	KilledPID *int       `json:"killed_pid"`
	ServerPID *int       `json:"server_pid"`
	Signal    *int       `json:"signal"`
	// SignalName as logged ("Killed", "Bus error").
	SignalName string `json:"signal_name,omitempty"`
	ExitCode   *int   `json:"exit_code"`
	// Query is what the killed backend was running, when logged.
	Query              string `json:"query,omitempty"`
	SessionsTerminated int    `json:"sessions_terminated"`
	ConnectionsRefused int    `json:"connections_refused"`
	// MatchedBy: "pid" (certain), "time" or "time-shifted" (guesses);
	// Guess says why it is one. Delta is crash time minus kill time after
	// Shift, the clock offset assumed.
	MatchedBy string         `json:"matched_by,omitempty"`
	Certain   bool           `json:"certain"`
	Guess     string         `json:"guess,omitempty"`
	Shift     *time.Duration `json:"shift_ns,omitempty"`
	Delta     *time.Duration `json:"delta_ns,omitempty"`
	// Steps are the restart's milestones in log order, dated or not.
	Steps []Step `json:"steps"`
	// Downtime is from the kill (or the crash line) to ready; Recovery from
	// reinitializing to ready. Null when a time is missing.
	Downtime *time.Duration `json:"downtime_ns"`
	Recovery *time.Duration `json:"recovery_ns"`
	// RecoveryWait is the time before redo started (after reinitializing);
	// null when either time is unknown.
	RecoveryWait *time.Duration `json:"recovery_wait_ns"`
	// ZoneWritten is the zone as printed; ZoneNote says what an ambiguous
	// or missing one means.
	ZoneWritten string `json:"zone_written,omitempty"`
	ZoneNote    string `json:"zone_note,omitempty"`
	// StopRequestedAt is the shutdown request logged before a postmaster
	// died: a stop timeout then kills it.
	StopRequestedAt *time.Time `json:"stop_requested_at,omitempty"`
	// NoRestart: the server did not restart by itself. PostmasterDied: the
	// postmaster itself died. StartupRecovery: a server that started after
	// an unclean stop outside the log. StartMissing: the log starts after
	// the crash began.
	NoRestart        bool   `json:"no_restart,omitempty"`
	PostmasterDied   bool   `json:"postmaster_died,omitempty"`
	StartupRecovery  bool   `json:"startup_recovery,omitempty"`
	StartMissing     bool   `json:"start_missing,omitempty"`
	Incomplete       bool   `json:"incomplete,omitempty"`
	IncompleteReason string `json:"incomplete_reason,omitempty"`
	// Notes explain it (the bus error of huge pages in a container, ...).
	Notes []string `json:"notes,omitempty"`
}

// Step is one milestone of a restart; At and After are null when the line
// carried no readable time.
type Step struct {
	// Kind is the milestone (dblog.StepReady, ...); What says it in words.
	Kind  string         `json:"kind"`
	What  string         `json:"what"`
	At    *time.Time     `json:"at"`
	After *time.Duration `json:"after_ns"`
}

// OOMError is PostgreSQL's "ERROR: out of memory", or the postmaster's
// "could not fork new process for connection: Cannot allocate memory".
type OOMError struct {
	Time    *time.Time `json:"time"`
	TimeRaw string     `json:"time_raw"`
	// ZoneKnown is false when the zone was missing or ambiguous;
	// ZoneWritten is the zone as printed; ZoneNote says what that means.
	ZoneKnown   bool   `json:"zone_known"`
	ZoneWritten string `json:"zone_written,omitempty"`
	ZoneNote    string `json:"zone_note,omitempty"`
	Instance    string `json:"instance,omitempty"`
	Source      string `json:"source"`
	PID         *int   `json:"pid"`
	// Kind: out-of-memory, fork, io-uring-setup.
	Kind     string `json:"kind"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	// RequestBytes is null when the size was not printed or was hidden
	// (RequestRedacted: "1xxxxxxxxx" is unknown, not 1 byte).
	RequestBytes    *uint64 `json:"request_bytes"`
	RequestRedacted bool    `json:"request_redacted,omitempty"`
	Context         string  `json:"context,omitempty"`
	// ErrorContext is the CONTEXT line; AutovacuumTarget the table an
	// autovacuum worker was processing.
	ErrorContext     string `json:"error_context,omitempty"`
	AutovacuumTarget string `json:"autovacuum_target,omitempty"`
	// LargestContexts are the three biggest memory contexts of the dump.
	LargestContexts []NamedBytes `json:"largest_contexts,omitempty"`
	// Largest is the memory context holding the most, from the dump.
	Largest      string  `json:"largest_context,omitempty"`
	LargestBytes *uint64 `json:"largest_context_bytes"`
	GrandTotal   *uint64 `json:"grand_total_bytes"`
	Query        string  `json:"query,omitempty"`
}

// NamedBytes is a memory context and its total.
type NamedBytes struct {
	Name  string `json:"name"`
	Bytes uint64 `json:"bytes"`
}

// explainCrash describes the restart that followed a kill at killAt (zero
// when unknown or unpaired).
func explainCrash(c crashRef, p dblog.Pair, killAt time.Time, loc *time.Location) Crash {
	x := Crash{Engine: c.Engine, Instance: c.Instance, Source: c.Source, TimeRaw: c.TimeRaw, ZoneKnown: c.ZoneKnown,
		Process: c.Process, KilledPID: c.KilledPID, ServerPID: c.ServerPID, Signal: c.Signal, SignalName: c.SignalName,
		ExitCode: c.ExitCode, Query: c.Query, SessionsTerminated: c.SessionsTerminated, ConnectionsRefused: c.ConnectionsRefused,
		MatchedBy: string(p.By), Certain: p.Certain, NoRestart: c.NoRestart, PostmasterDied: c.PostmasterDied,
		StartupRecovery: c.StartupRecovery, StartMissing: c.StartMissing, Incomplete: c.Incomplete, IncompleteReason: c.IncompleteReason}
	x.Time = timeIn(c.Time, loc)
	x.StopRequestedAt = timeIn(c.StopRequestedAt, loc)
	if p.By != "" && !killAt.IsZero() && !c.Time.IsZero() {
		x.Shift, x.Delta = new(p.Shift), new(p.Delta)
	}
	x.Guess = guess(p, c)
	base := c.Time
	if !killAt.IsZero() && p.By != "" {
		base = killAt.Add(p.Shift) // the kill, on the database log's clock
	}
	x.Steps = steps(c.CrashRestart, base, loc)
	if !c.ReadyAt.IsZero() && !base.IsZero() {
		x.Downtime = new(c.ReadyAt.Sub(base))
	}
	if d, ok := c.RecoveryDuration(); ok {
		x.Recovery = new(d)
	}
	if d, ok := c.RecoveryWait(); ok && !c.RedoStartAt.IsZero() {
		x.RecoveryWait = new(d)
	}
	x.ZoneWritten = c.ZoneWritten
	if !c.Time.IsZero() {
		x.ZoneNote = zoneNote(c.ZoneKnown, c.ZoneWritten)
	}
	x.Notes = crashNotes(x)
	return x
}

// ReadyStep reports whether the server was ready again in the log.
func (c Crash) ReadyStep() bool {
	return len(c.Steps) > 0 && c.Steps[len(c.Steps)-1].Kind == dblog.StepReady
}

// timeIn returns t in loc, or nil when t is unknown.
func timeIn(t time.Time, loc *time.Location) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.In(loc)
	return &t
}

// guess says why a pairing is not certain, or "" when it is.
func guess(p dblog.Pair, c crashRef) string {
	switch p.By {
	case dblog.ByTime:
		named := "names no PID"
		if c.KilledPID != nil {
			named = fmt.Sprintf("names PID %d", *c.KilledPID)
		}
		return fmt.Sprintf("a guess: no PID in common (the log %s); paired because the crash was logged %s after the kill",
			named, signedDur(p.Delta))
	case dblog.ByShiftedTime:
		return fmt.Sprintf("a guess: paired by time with the two clocks %s apart; one log's time zone was probably read wrong", signedDur(p.Shift))
	}
	return ""
}

// stepNames say what each milestone means for the person on call.
var stepNames = map[string]string{
	dblog.StepCrash:          "the death was logged",
	dblog.StepPostmasterDied: "the postmaster died: its backends ended (\"unexpected postmaster exit\")",
	dblog.StepTerminating:    "terminating every other server process",
	dblog.StepReinitializing: "all server processes gone: reinitializing",
	dblog.StepRestart:        "mysqld_safe restarted the server",
	dblog.StepStart:          "a new server instance started",
	dblog.StepRecovery:       "crash recovery started",
	dblog.StepRedoStart:      "redo started",
	dblog.StepRedoDone:       "redo done",
	dblog.StepReady:          "ready to accept connections",
	dblog.StepEnded:          "the server ended again before it was ready",
}

// steps lists the restart's milestones in log order, with their delay
// after base when both are dated.
func steps(c dblog.CrashRestart, base time.Time, loc *time.Location) []Step {
	out := make([]Step, 0, len(c.Steps))
	for _, m := range c.Steps {
		what := stepNames[m.Kind]
		if m.Kind == dblog.StepCrash && c.Engine == "postgresql" && c.KilledPID != nil {
			what = fmt.Sprintf("the postmaster logged the death of PID %d", *c.KilledPID)
		}
		if m.Kind == dblog.StepCrash && c.Engine == "mysql" {
			what = "the server was found gone (a killed mysqld logs nothing)"
			if c.Signal != nil {
				what = fmt.Sprintf("mysqld got signal %d (it crashed)", *c.Signal)
			}
		}
		s := Step{Kind: m.Kind, What: what, At: timeIn(m.Time, loc)}
		if !m.Time.IsZero() && !base.IsZero() {
			s.After = new(m.Time.Sub(base))
		}
		out = append(out, s)
	}
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
