package dblog

import (
	"strconv"
	"strings"
)

// onTerminated opens a crash for "... (PID n) was terminated by signal s".
// An exit with a code is held until "terminating any other active server
// processes" shows it caused a restart (background workers exit with 1 at
// every shutdown).
func (s *pgState) onTerminated(e entry, m []string) {
	c := CrashRestart{Engine: "postgresql", Time: e.st.t, TimeRaw: e.st.raw, ZoneKnown: e.st.zoneKnown, ZoneWritten: e.st.zone,
		ServerPID: pidOf(e), Process: m[1], Lines: e.lines}
	if n, err := strconv.Atoi(m[2]); err == nil {
		c.KilledPID = &n
	}
	c.Query = strings.TrimPrefix(e.detail, "Failed process was running: ")
	c.step(StepCrash, e.st)
	if m[3] != "" {
		n, _ := strconv.Atoi(m[3])
		c.Signal, c.SignalName = &n, m[4]
		s.end("another crash began before the server was ready")
		s.cur = &c
		return
	}
	n, _ := strconv.Atoi(m[5])
	c.ExitCode = &n
	s.exited = &c
}

func pidOf(e entry) *int {
	if e.pid == 0 {
		return nil
	}
	return new(e.pid)
}

// onMilestone files the postmaster's restart messages.
func (s *pgState) onMilestone(e entry) {
	msg := e.message
	switch {
	case strings.HasPrefix(msg, "terminating any other active server processes"):
		s.startTerminating(e)
		return
	case strings.HasPrefix(msg, "received immediate shutdown request"):
		s.shutdown = true
	case strings.HasPrefix(msg, "received smart shutdown request"), strings.HasPrefix(msg, "received fast shutdown request"):
		s.stopAsked = e.st
	case strings.HasPrefix(msg, "terminating connection due to unexpected postmaster exit"):
		s.postmasterDied(e)
		return
	case isRecoveryStart(msg) && s.cur == nil:
		s.open(e, "", "")
		s.cur.StartupRecovery = true
	case isCrashEcho(msg) && s.cur == nil && !s.shutdown:
		s.open(e, "the log starts after the crash began", "")
	}
	if s.cur != nil {
		s.milestone(e)
	}
}

// isRecoveryStart: the startup process found the server was not shut down
// (or, with its first lines missing, is replaying WAL).
func isRecoveryStart(msg string) bool {
	return strings.HasPrefix(msg, "database system was interrupted") || strings.Contains(msg, "automatic recovery in progress") ||
		strings.HasPrefix(msg, "redo starts at") || strings.HasPrefix(msg, "redo done at")
}

// isCrashEcho: what backends log while a crash restart is under way.
func isCrashEcho(msg string) bool {
	return strings.HasPrefix(msg, "terminating connection because of crash of another server process") ||
		strings.HasPrefix(msg, "the database system is in recovery mode")
}

// open starts a crash whose first line is not a death notice.
func (s *pgState) open(e entry, reason, _ string) {
	s.cur = &CrashRestart{Engine: "postgresql", Time: e.st.t, TimeRaw: e.st.raw, ZoneKnown: e.st.zoneKnown, ZoneWritten: e.st.zone,
		StartMissing: reason != ""}
}

// milestone files one step of the open crash.
func (s *pgState) milestone(e entry) {
	c, msg, t := s.cur, e.message, e.st.t
	c.Lines = append(c.Lines, e.lines...)
	switch {
	case strings.HasPrefix(msg, "terminating connection because of crash of another server process"):
		c.SessionsTerminated++
	case strings.HasPrefix(msg, "the database system is in recovery mode"):
		c.ConnectionsRefused++
	case strings.HasPrefix(msg, "all server processes terminated; reinitializing"):
		c.ReinitializedAt = t
		c.step(StepReinitializing, e.st)
	case strings.HasPrefix(msg, "database system was interrupted"):
		if m := lastUpRe.FindStringSubmatch(msg); m != nil {
			c.LastKnownUp = m[1]
		}
		s.recovery(e)
	case strings.Contains(msg, "automatic recovery in progress"):
		s.recovery(e)
	case strings.HasPrefix(msg, "redo starts at"):
		c.RedoStartAt = t
		c.step(StepRedoStart, e.st)
	case strings.HasPrefix(msg, "redo done at"), strings.HasPrefix(msg, "redo is not required"):
		c.RedoDoneAt = t
		c.step(StepRedoDone, e.st)
		s.redoElapsed(msg)
	default:
		s.lastMilestone(e)
	}
}

// lastMilestone files the end of a restart: ready, or a shutdown.
func (s *pgState) lastMilestone(e entry) {
	c, msg := s.cur, e.message
	switch {
	case strings.HasPrefix(msg, "database system is ready to accept"):
		c.ReadyAt = e.st.t
		c.step(StepReady, e.st)
		if c.ServerPID == nil {
			c.ServerPID = pidOf(e) // the postmaster logs "ready"
		}
		s.finish()
	case strings.Contains(msg, "restart_after_crash"), strings.HasPrefix(msg, "database system is shut down"):
		c.NoRestart = strings.Contains(msg, "restart_after_crash")
		s.end("the server shut down instead of restarting")
	default:
		c.Lines = c.Lines[:len(c.Lines)-len(e.lines)] // not part of the restart
	}
}

// postmasterDied opens (once) the crash of a postmaster that died: its
// backends end with "terminating connection due to unexpected postmaster
// exit" and nothing restarts the server by itself.
func (s *pgState) postmasterDied(e entry) {
	if s.cur != nil && s.cur.PostmasterDied {
		s.cur.SessionsTerminated++
		s.cur.Lines = append(s.cur.Lines, e.lines...)
		return
	}
	s.end("the postmaster died before the server was ready")
	s.cur = &CrashRestart{Engine: "postgresql", Time: e.st.t, TimeRaw: e.st.raw, ZoneKnown: e.st.zoneKnown, ZoneWritten: e.st.zone,
		Process: "postmaster", PostmasterDied: true, NoRestart: true, SessionsTerminated: 1, Lines: e.lines,
		StopRequestedAt: s.stopAsked.t}
	s.cur.step(StepPostmasterDied, e.st)
}

// recovery files the start of crash recovery, once.
func (s *pgState) recovery(e entry) {
	c := s.cur
	for _, m := range c.Steps {
		if m.Kind == StepRecovery {
			return
		}
	}
	c.RecoveryAt = e.st.t
	c.step(StepRecovery, e.st)
}

func (s *pgState) startTerminating(e entry) {
	if s.cur == nil && s.exited != nil && ptrEq(s.exited.ServerPID, e.pid) {
		s.cur = s.exited
	}
	s.exited = nil
	if s.cur == nil {
		// A PANIC or a crash whose first line is missing.
		s.open(e, "", "")
		s.cur.ServerPID = pidOf(e)
	}
	s.cur.TerminatingAt = e.st.t
	s.cur.step(StepTerminating, e.st)
	s.cur.Lines = append(s.cur.Lines, e.lines...)
}

func ptrEq(p *int, v int) bool { return (p == nil && v == 0) || (p != nil && *p == v) }

func (s *pgState) redoElapsed(msg string) {
	m := elapsedRe.FindStringSubmatch(msg)
	if m == nil {
		return
	}
	if d, err := parseSecondsFloat(m[1]); err == nil {
		s.cur.RedoElapsed = &d
	}
}

// finish closes the open crash: the server is ready again.
func (s *pgState) finish() {
	s.cur.Incomplete, s.cur.IncompleteReason = false, ""
	s.out.Crashes = append(s.out.Crashes, *s.cur)
	s.cur = nil
}

// end closes the open crash before the server was ready: incomplete for the
// given reason, unless the server was not going to restart by itself.
func (s *pgState) end(reason string) {
	c := s.cur
	if c == nil {
		return
	}
	c.Incomplete, c.IncompleteReason = !c.NoRestart, reason
	if c.NoRestart {
		c.IncompleteReason = ""
	}
	s.out.Crashes = append(s.out.Crashes, *c)
	s.cur = nil
}
