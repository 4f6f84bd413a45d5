package dblog

import (
	"time"
)

// CrashRestart is a database server that lost a process and restarted:
// for PostgreSQL the postmaster's crash-recovery cycle, for MySQL/MariaDB a
// new server instance that had to recover from a crash.
type CrashRestart struct {
	// Engine is "postgresql" or "mysql" (MySQL and MariaDB).
	Engine string
	// Time is when the crash was logged: PostgreSQL's "terminated by
	// signal" line, MySQL's first line of the recovering instance.
	Time time.Time
	// TimeRaw is the stamp as printed; ZoneKnown is false when its zone was
	// missing or ambiguous and Options.Location was assumed.
	TimeRaw   string
	ZoneKnown bool
	// ServerPID is the postmaster's PID (PostgreSQL) or the new instance's.
	ServerPID int
	// Process is what died, as the postmaster names it: "server process",
	// "checkpointer process", `background worker "x"` ...
	Process string
	// KilledPID is the PID that died (MySQL: the previous instance's PID).
	KilledPID int
	// Signal and SignalName, e.g. 9 and "Killed"; 0 when it exited instead.
	Signal     int
	SignalName string
	// ExitCode is set when the process exited with a code (HasExitCode).
	ExitCode    int
	HasExitCode bool
	// Query is "Failed process was running: ..." (PostgreSQL).
	Query string
	// SessionsTerminated counts "terminating connection because of crash of
	// another server process" warnings: sessions the crash took down.
	SessionsTerminated int
	// The milestones of the restart; zero when not logged.
	TerminatingAt   time.Time // "terminating any other active server processes"
	ReinitializedAt time.Time // "all server processes terminated; reinitializing"
	RecoveryAt      time.Time // "automatic recovery in progress" / "Starting crash recovery"
	RedoStartAt     time.Time // "redo starts at"
	RedoDoneAt      time.Time // "redo done at"
	ReadyAt         time.Time // "ready to accept connections" / "ready for connections"
	// LastKnownUp is printed by "database system was interrupted; last known up at ...".
	LastKnownUp string
	// RedoElapsed is "elapsed: X s" of the redo done line (PostgreSQL 14+).
	RedoElapsed    time.Duration
	HasRedoElapsed bool
	// NoRestart is true when restart_after_crash = off stopped the server.
	NoRestart bool
	// Incomplete is true when the log ends (or another crash starts) before
	// the server was ready again.
	Incomplete       bool
	IncompleteReason string
	Lines            []string
}

// Downtime is from the crash to ready for connections (0 if not ready).
func (c CrashRestart) Downtime() time.Duration {
	if c.ReadyAt.IsZero() || c.Time.IsZero() {
		return 0
	}
	return c.ReadyAt.Sub(c.Time)
}

// RecoveryDuration is from reinitializing (or the start of recovery) to
// ready for connections (0 if not known).
func (c CrashRestart) RecoveryDuration() time.Duration {
	start := c.ReinitializedAt
	if start.IsZero() {
		start = c.RecoveryAt
	}
	if c.ReadyAt.IsZero() || start.IsZero() {
		return 0
	}
	return c.ReadyAt.Sub(start)
}
