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
	c := CrashRestart{Engine: "postgresql", Time: e.st.t, TimeRaw: e.st.raw, ZoneKnown: e.st.zoneKnown,
		ServerPID: e.pid, Process: m[1], Lines: e.lines}
	c.KilledPID, _ = strconv.Atoi(m[2])
	c.Query = strings.TrimPrefix(e.detail, "Failed process was running: ")
	if m[3] != "" {
		c.Signal, _ = strconv.Atoi(m[3])
		c.SignalName = m[4]
		s.end("another crash began before the server was ready")
		s.cur = &c
		return
	}
	c.ExitCode, _ = strconv.Atoi(m[5])
	c.HasExitCode = true
	s.exited = &c
}

// onMilestone files the postmaster's restart messages.
func (s *pgState) onMilestone(e entry) {
	msg := e.message
	if strings.HasPrefix(msg, "terminating any other active server processes") {
		s.startTerminating(e)
		return
	}
	c := s.cur
	if c == nil {
		return
	}
	c.Lines = append(c.Lines, e.lines...)
	t := e.st.t
	switch {
	case strings.HasPrefix(msg, "terminating connection because of crash of another server process"):
		c.SessionsTerminated++
	case strings.HasPrefix(msg, "all server processes terminated; reinitializing"):
		c.ReinitializedAt = t
	case strings.HasPrefix(msg, "database system was interrupted"):
		if m := lastUpRe.FindStringSubmatch(msg); m != nil {
			c.LastKnownUp = m[1]
		}
	case strings.Contains(msg, "automatic recovery in progress"):
		c.RecoveryAt = t
	case strings.HasPrefix(msg, "redo starts at"):
		c.RedoStartAt = t
	case strings.HasPrefix(msg, "redo done at"), strings.HasPrefix(msg, "redo is not required"):
		c.RedoDoneAt = t
		s.redoElapsed(msg)
	case strings.HasPrefix(msg, "database system is ready to accept"):
		c.ReadyAt = t
		s.finish()
	case strings.Contains(msg, "restart_after_crash"), strings.HasPrefix(msg, "database system is shut down"):
		c.NoRestart = strings.Contains(msg, "restart_after_crash")
		s.end("the server shut down instead of restarting")
	default:
		c.Lines = c.Lines[:len(c.Lines)-len(e.lines)] // not part of the restart
	}
}

func (s *pgState) startTerminating(e entry) {
	if s.cur == nil && s.exited != nil && s.exited.ServerPID == e.pid {
		s.cur = s.exited
	}
	s.exited = nil
	if s.cur == nil {
		// A PANIC or a crash whose first line is missing.
		s.cur = &CrashRestart{Engine: "postgresql", Time: e.st.t, TimeRaw: e.st.raw,
			ZoneKnown: e.st.zoneKnown, ServerPID: e.pid}
	}
	s.cur.TerminatingAt = e.st.t
	s.cur.Lines = append(s.cur.Lines, e.lines...)
}

func (s *pgState) redoElapsed(msg string) {
	m := elapsedRe.FindStringSubmatch(msg)
	if m == nil {
		return
	}
	if d, err := parseSecondsFloat(m[1]); err == nil {
		s.cur.RedoElapsed, s.cur.HasRedoElapsed = d, true
	}
}

// finish closes the open crash as complete.
func (s *pgState) finish() {
	s.out.Crashes = append(s.out.Crashes, *s.cur)
	s.cur = nil
}

// end closes the open crash as incomplete for the given reason.
func (s *pgState) end(reason string) {
	if s.cur == nil {
		return
	}
	s.cur.Incomplete, s.cur.IncompleteReason = true, reason
	if s.cur.NoRestart {
		s.cur.Incomplete, s.cur.IncompleteReason = false, ""
	}
	s.finish()
}
