package dblog

import (
	"time"
)

// CrashRestart is a database server that lost a process and restarted (or
// did not): for PostgreSQL the postmaster's crash-recovery cycle, the
// postmaster's own death, or a recovery at startup after an unclean stop;
// for MySQL/MariaDB a new server instance that had to recover from a crash.
// A figure the log did not print is nil (or a zero time).
type CrashRestart struct {
	// Engine is "postgresql" or "mysql" (MySQL and MariaDB).
	Engine string
	// Time is when the crash was logged: PostgreSQL's "terminated by
	// signal" line, MySQL's first line of the recovering instance (or
	// mysqld_safe's "Number of processes running now: 0"). Zero when the
	// line has no readable time (TimeRaw may still hold what was printed).
	Time time.Time
	// TimeRaw is the stamp as printed; ZoneKnown is false when its zone was
	// missing or ambiguous and Options.Location was assumed.
	TimeRaw   string
	ZoneKnown bool
	// ZoneWritten is the zone as the log printed it ("CST", "+01"), ""
	// when it printed none.
	ZoneWritten string
	// ServerPID is the postmaster's PID (PostgreSQL) or the new instance's.
	ServerPID *int
	// Process is what died, as the postmaster names it: "server process",
	// "checkpointer process", `background worker "x"`, "postmaster" ...
	Process string
	// KilledPID is the PID that died (MySQL: the previous instance's PID).
	KilledPID *int
	// Signal and SignalName, e.g. 9 and "Killed", 7 and "Bus error"; nil
	// when it exited with a code (ExitCode) or the log does not say.
	Signal     *int
	SignalName string
	ExitCode   *int
	// Query is "Failed process was running: ..." (PostgreSQL).
	Query string
	// SessionsTerminated counts "terminating connection because of crash of
	// another server process" warnings: sessions the crash took down.
	// ConnectionsRefused counts "the database system is in recovery mode".
	SessionsTerminated int
	ConnectionsRefused int
	// The milestones of the restart; zero when not logged or not dated.
	TerminatingAt   time.Time // "terminating any other active server processes"
	ReinitializedAt time.Time // "all server processes terminated; reinitializing"
	RecoveryAt      time.Time // "automatic recovery in progress" / "Starting crash recovery"
	RedoStartAt     time.Time // "redo starts at"
	RedoDoneAt      time.Time // "redo done at"
	ReadyAt         time.Time // "ready to accept connections" / "ready for connections"
	// Steps are the milestones in log order, dated or not: a log without
	// timestamps still shows what happened in which order.
	Steps []Milestone
	// LastKnownUp is printed by "database system was interrupted; last known up at ...".
	LastKnownUp string
	// RedoElapsed is "elapsed: X s" of the redo done line (PostgreSQL 14+).
	RedoElapsed *time.Duration
	// NoRestart is true when the server did not restart by itself:
	// restart_after_crash = off, the postmaster's own death, or a MySQL
	// server that crashed with no mysqld_safe to start it again.
	NoRestart bool
	// PostmasterDied is true when the postmaster itself died (its children
	// logged "terminating connection due to unexpected postmaster exit").
	PostmasterDied bool
	// StartupRecovery is true for a server that started and found it had
	// not been shut down cleanly, with no crash of it in the log: the
	// previous run ended before the log begins (or outside it).
	StartupRecovery bool
	// StopRequestedAt is the shutdown request logged before a postmaster
	// died (a stop timeout then SIGKILLs it), zero when none.
	StopRequestedAt time.Time
	// StartMissing is true when the log starts after the crash began: its
	// sessions were being ended, but the line naming what died is missing.
	StartMissing bool
	// Incomplete is true when the log ends (or another crash starts) before
	// the server was ready again.
	Incomplete       bool
	IncompleteReason string
	Lines            []string
}

// Milestone is one step of a crash and restart, as logged.
type Milestone struct {
	Kind string
	// Time is zero when the line carried no readable time.
	Time    time.Time
	TimeRaw string
}

// The milestone kinds, in the order a restart goes through them.
const (
	StepCrash          = "crash"           // the death was logged
	StepPostmasterDied = "postmaster-died" // backends saw the postmaster die
	StepTerminating    = "terminating"     // every other process is told to quit
	StepReinitializing = "reinitializing"  // all gone: shared memory is recreated
	StepRestart        = "restart"         // mysqld_safe started a new server
	StepStart          = "start"           // a new server instance logged its start
	StepRecovery       = "recovery"        // crash recovery began
	StepRedoStart      = "redo-start"
	StepRedoDone       = "redo-done"
	StepReady          = "ready"
	StepEnded          = "ended" // the restarted server died before it was ready
)

// step appends a milestone.
func (c *CrashRestart) step(kind string, st stamp) {
	c.Steps = append(c.Steps, Milestone{Kind: kind, Time: st.t, TimeRaw: st.raw})
}

// Downtime is from the crash to ready for connections; ok is false when
// either time is unknown.
func (c CrashRestart) Downtime() (time.Duration, bool) {
	if c.ReadyAt.IsZero() || c.Time.IsZero() {
		return 0, false
	}
	return c.ReadyAt.Sub(c.Time), true
}

// RecoveryDuration is the recovery itself: from "redo starts" to ready
// for connections when redo was logged, else from reinitializing (or the
// start of recovery); ok is false when not known. RecoveryWait says how
// long the server took before redo started.
func (c CrashRestart) RecoveryDuration() (time.Duration, bool) {
	start := c.RedoStartAt
	if start.IsZero() {
		start = c.ReinitializedAt
	}
	if start.IsZero() {
		start = c.RecoveryAt
	}
	if c.ReadyAt.IsZero() || start.IsZero() {
		return 0, false
	}
	return c.ReadyAt.Sub(start), true
}

// RecoveryWait is the time between the crash's restart (reinitializing,
// else the start of recovery, else the crash line) and "redo starts": a
// server that waits minutes here before a few seconds of redo is slow to
// start (a checkpoint, a big pg_wal to scan, storage), not slow to replay.
// ok is false when either time is unknown.
func (c CrashRestart) RecoveryWait() (time.Duration, bool) {
	from := c.ReinitializedAt
	for _, t := range []time.Time{c.RecoveryAt, c.Time} {
		if from.IsZero() {
			from = t
		}
	}
	if c.RedoStartAt.IsZero() || from.IsZero() || c.RedoStartAt.Before(from) {
		return 0, false
	}
	return c.RedoStartAt.Sub(from), true
}
