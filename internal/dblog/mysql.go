package dblog

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var (
	// "2026-11-22 21:29:01 0 [Note] ..." (MariaDB 10.x, MySQL 5.7),
	// "2026-11-22T21:29:01.123456Z 0 [System] [MY-010116] [Server] ..." (MySQL 8),
	// "161122 21:29:01 [Note] ..." (MySQL 5.5, MariaDB 5.5/10.0).
	mysqlLineRe = regexp.MustCompile(`^(\d{4}-\d\d-\d\d(?:T\d\d| {1,2}\d{1,2}):\d\d:\d\d(?:\.\d+)?Z?|\d{6} {1,2}\d{1,2}:\d\d:\d\d)\s+(?:\d+\s+)?\[(\w+)\]\s+`)
	processRe   = regexp.MustCompile(`(?:starting as process|as process) (\d+)`)
	gotSignalRe = regexp.MustCompile(`got signal (\d+)`)
)

// ParseMySQL reads a MySQL or MariaDB error log with default Options.
func ParseMySQL(r io.Reader) ([]CrashRestart, error) { return Options{}.ParseMySQL(r) }

// ParseMySQL reads a MySQL or MariaDB error log and returns the restarts
// after a crash: a new server instance that starts while the previous one
// never logged "Shutdown complete", or that runs InnoDB crash recovery.
// A SIGKILL leaves no line of its own: KilledPID is the previous instance's
// PID ("starting as process N"), Time the new instance's first line.
func (o Options) ParseMySQL(r io.Reader) ([]CrashRestart, error) {
	if o.Location == nil {
		o.Location = time.UTC
	}
	st := &mysqlState{loc: o.Location}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for sc.Scan() {
		st.line(strings.TrimRight(sc.Text(), "\r"))
	}
	st.close("the log ends before the server was ready again")
	if err := sc.Err(); err != nil {
		return st.out, fmt.Errorf("read MySQL error log: %w", err)
	}
	return st.out, nil
}

type mysqlState struct {
	loc     *time.Location
	out     []CrashRestart
	cur     *CrashRestart
	pid     int  // the running instance
	clean   bool // it logged "Shutdown complete"
	started bool // an instance start was seen
	signal  int  // "got signal N" of the running instance
}

func (s *mysqlState) line(raw string) {
	if len(raw) > maxDumpLine {
		return // no line that matters is this long
	}
	if strings.Contains(raw, "got signal") {
		if m := gotSignalRe.FindStringSubmatch(raw); m != nil {
			s.signal, _ = strconv.Atoi(m[1])
		}
	}
	m := mysqlLineRe.FindStringSubmatch(raw)
	if m == nil {
		return
	}
	st := mysqlStamp(m[1], s.loc)
	msg := raw[len(m[0]):]
	switch {
	case strings.Contains(msg, "as process ") && processRe.MatchString(msg):
		s.onStart(st, msg, raw)
	case strings.Contains(msg, "Starting crash recovery"), strings.Contains(msg, "not shut down normally"),
		strings.Contains(msg, "not shutdown normally"):
		s.onRecovery(st, raw)
	case strings.Contains(msg, "ready for connections"):
		if s.cur != nil {
			s.cur.ReadyAt = st.t
			s.cur.Lines = append(s.cur.Lines, raw)
			s.finish()
		}
	case strings.Contains(msg, "Shutdown complete"):
		s.clean = true
	}
}

// onStart notes a new instance; it is a crash restart unless the previous
// instance shut down cleanly.
func (s *mysqlState) onStart(st stamp, msg, raw string) {
	n, _ := strconv.Atoi(processRe.FindStringSubmatch(msg)[1])
	s.close("another start before the server was ready")
	if s.started && !s.clean {
		s.open(st, raw)
		s.cur.KilledPID = s.pid
		s.cur.ServerPID = n
	}
	s.pid, s.clean, s.started, s.signal = n, false, true, 0
}

func (s *mysqlState) onRecovery(st stamp, raw string) {
	if s.cur == nil {
		s.open(st, raw) // the first instance in the log is recovering
		s.cur.ServerPID = s.pid
	} else {
		s.cur.Lines = append(s.cur.Lines, raw)
	}
	if s.cur.RecoveryAt.IsZero() {
		s.cur.RecoveryAt = st.t
	}
}

func (s *mysqlState) open(st stamp, raw string) {
	s.cur = &CrashRestart{Engine: "mysql", Time: st.t, TimeRaw: st.raw, ZoneKnown: st.zoneKnown,
		ReinitializedAt: st.t, Signal: s.signal, Lines: []string{raw}}
	if s.signal != 0 {
		s.cur.SignalName = "signal " + strconv.Itoa(s.signal)
	}
}

func (s *mysqlState) finish() {
	s.out = append(s.out, *s.cur)
	s.cur = nil
}

func (s *mysqlState) close(reason string) {
	if s.cur != nil {
		s.cur.Incomplete, s.cur.IncompleteReason = true, reason
		s.finish()
	}
}

// mysqlStamp reads "2026-11-22 21:29:01", "...T21:29:01.123456Z",
// MariaDB's space-padded "2026-11-23  0:52:21" or "161122 21:29:01".
func mysqlStamp(s string, loc *time.Location) stamp {
	if st, n := parseStamp(s, loc); n > 0 {
		return st
	}
	norm := strings.Join(strings.Fields(s), " ")
	t, err := time.ParseInLocation("2006-01-02 15:04:05.999999999", norm, loc)
	if err != nil {
		t, err = time.ParseInLocation("060102 15:04:05", norm, loc)
	}
	if err != nil {
		return stamp{raw: s}
	}
	return stamp{raw: s, t: t}
}
