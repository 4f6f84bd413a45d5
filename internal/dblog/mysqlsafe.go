package dblog

import "strings"

// onSafe files mysqld_safe's lines: it watches the server and restarts it.
//
//	"Number of processes running now: 0"    the server is gone
//	"mysqld restarted"                       mysqld_safe started a new one
//	"mysqld from pid file X ended"           the server exited, no restart
func (s *mysqlState) onSafe(st stamp, msg, raw string) {
	switch {
	case strings.Contains(msg, "Number of processes running now: 0"):
		died := st
		s.died = &died
	case strings.Contains(msg, "mysqld restarted"):
		s.close("another restart before the server was ready")
		at := st
		if s.died != nil {
			at = *s.died
		}
		s.open(at, raw)
		s.cur.step(StepRestart, st)
		s.started, s.clean, s.pid, s.died = true, false, 0, nil
	case strings.Contains(msg, " ended"):
		s.onEnded(st, raw)
	}
}

// onEnded: the server exited and mysqld_safe does not restart it. During a
// restart that is a failed restart; otherwise, unless it had shut down
// cleanly, a crash nothing restarted.
func (s *mysqlState) onEnded(st stamp, raw string) {
	if s.cur != nil {
		s.cur.step(StepEnded, st)
		s.cur.Lines = append(s.cur.Lines, raw)
		s.close("the restarted server ended before it was ready")
		return
	}
	if s.clean || !s.started {
		return
	}
	s.open(st, raw)
	s.cur.NoRestart = true
	s.finish()
	s.started = false
}

// atEnd closes what the log leaves open: a restart not yet ready, or a
// crash ("got signal N") that nothing restarted.
func (s *mysqlState) atEnd() {
	if s.cur != nil {
		s.close("the log ends before the server was ready again")
		return
	}
	if s.signal != nil {
		s.open(s.signalT, "")
		s.cur.Lines = nil
		s.cur.NoRestart = true
		s.finish()
	}
}
