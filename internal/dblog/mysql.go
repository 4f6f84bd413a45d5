package dblog

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/loglines"
)

var (
	// The stamp a MySQL/MariaDB error log line starts with:
	// "2026-11-22 21:59:53 0 [Note] ..." (MariaDB 10.x, MySQL 5.7),
	// "2026-11-22T21:29:01.123456Z 0 [System] [MY-010116] [Server] ..." (MySQL 8),
	// "161122 21:29:01 [Note] ..." and "161122 21:29:01 InnoDB: ..." (5.5),
	// "161122 21:29:01 mysqld_safe ..." (mysqld_safe).
	mysqlStampRe = regexp.MustCompile(`^(\d{4}-\d\d-\d\d(?:T\d\d| {1,2}\d{1,2}):\d\d:\d\d(?:\.\d+)?Z?|\d{6} {1,2}\d{1,2}:\d\d:\d\d)\s+`)
	// A container runtime's prefix: "database_1   | ", "mysql-1  | ".
	composeRe   = regexp.MustCompile(`^[\w.-]+ +\| `)
	processRe   = regexp.MustCompile(`(?:starting as process|as process) (\d+)`)
	gotSignalRe = regexp.MustCompile(`got signal (\d+)`)
	// "16:00:02 UTC - mysqld got signal 6 ;" has a time of day only.
	signalStampRe = regexp.MustCompile(`^(\d{1,2}:\d\d:\d\d(?: UTC)?) - `)
)

// MySQLLog is what ReadMySQL found.
type MySQLLog struct {
	Crashes []CrashRestart
	// MemoryErrors are the allocations the server could not make.
	MemoryErrors []MemoryError
	// Ready are the "ready for connections" lines: when each start
	// finished.
	Ready []Milestone
	Stats loglines.Stats
}

// ReadMySQL reads a MySQL or MariaDB error log: the restarts after a crash
// (mysqld_safe's "mysqld restarted", a new instance that starts while the
// previous one never logged "Shutdown complete", InnoDB crash recovery) and
// crashes nothing restarted ("mysqld got signal 11" at the end). A SIGKILL
// leaves no line of its own: KilledPID is the previous instance's PID
// ("starting as process N"), Time the first line that shows the death.
func (o Options) ReadMySQL(r io.Reader) (MySQLLog, error) {
	if o.Location == nil {
		o.Location = time.UTC
	}
	st := &mysqlState{loc: o.Location, mem: mysqlMem{poolAt: -groupLines}}
	stats, err := loglines.Read(r, maxLine, st.line)
	st.atEnd()
	out := MySQLLog{Crashes: st.out, MemoryErrors: st.mem.out, Ready: st.ready, Stats: stats}
	if err != nil {
		return out, fmt.Errorf("read MySQL error log: %w", err)
	}
	return out, nil
}

type mysqlState struct {
	loc     *time.Location
	out     []CrashRestart
	cur     *CrashRestart
	pid     int  // the running instance
	clean   bool // it logged "Shutdown complete"
	started bool // an instance start was seen
	signal  *int // "got signal N" of the running instance
	signalT stamp
	died    *stamp // mysqld_safe saw the server gone
	startSt stamp  // when the running instance started
	mem     mysqlMem
	ready   []Milestone
}

func (s *mysqlState) line(raw string) {
	if len(raw) > maxDumpLine {
		return // no line that matters is this long
	}
	raw = normalizeMySQL(composeRe.ReplaceAllString(strings.TrimRight(raw, "\r"), ""))
	if strings.Contains(raw, "got signal") {
		s.onSignal(raw)
		return
	}
	m := mysqlStampRe.FindStringSubmatch(raw)
	if m == nil {
		s.mem.line(stamp{}, raw, raw)
		if isMySQLRecovery(raw) {
			s.onRecovery(stamp{}, raw)
		}
		return
	}
	st := mysqlStamp(m[1], s.loc)
	s.mem.line(st, raw[len(m[0]):], raw)
	s.message(st, raw[len(m[0]):], raw)
}

// message files one stamped line.
func (s *mysqlState) message(st stamp, msg, raw string) {
	switch {
	case strings.HasPrefix(msg, "mysqld_safe "):
		s.onSafe(st, msg, raw)
	case strings.Contains(msg, "as process ") && processRe.MatchString(msg):
		s.onStart(st, msg, raw)
	case isMySQLRecovery(msg):
		s.onRecovery(st, raw)
	case strings.Contains(msg, "ready for connections"):
		s.ready = append(s.ready, Milestone{Kind: StepReady, Time: st.t, TimeRaw: st.raw})
		s.mem.started()
		if s.cur != nil {
			s.cur.ReadyAt = st.t
			s.cur.step(StepReady, st)
			s.cur.Lines = append(s.cur.Lines, raw)
			s.finish()
		}
	case strings.Contains(msg, "Shutdown complete"):
		s.clean = true
	}
}

// onSignal notes "mysqld got signal N": the running server crashed.
func (s *mysqlState) onSignal(raw string) {
	m := gotSignalRe.FindStringSubmatch(raw)
	if m == nil {
		return
	}
	n, _ := strconv.Atoi(m[1])
	s.signal = &n
	s.signalT = stamp{}
	if t := signalStampRe.FindStringSubmatch(raw); t != nil {
		s.signalT.raw = t[1]
	} else if t := mysqlStampRe.FindStringSubmatch(raw); t != nil {
		s.signalT = mysqlStamp(t[1], s.loc)
	}
	if s.cur != nil {
		s.cur.step(StepEnded, s.signalT)
		s.close("the restarted server crashed (signal " + m[1] + ") before it was ready")
	}
}

// onStart notes a new instance; it is a crash restart unless the previous
// instance shut down cleanly.
func (s *mysqlState) onStart(st stamp, msg, raw string) {
	n, _ := strconv.Atoi(processRe.FindStringSubmatch(msg)[1])
	if s.cur != nil && s.cur.ServerPID == nil {
		s.cur.ServerPID = new(n) // the server mysqld_safe restarted
		s.cur.ReinitializedAt = st.t
		s.cur.step(StepStart, st)
		s.cur.Lines = append(s.cur.Lines, raw)
	} else {
		s.close("another start before the server was ready")
		if s.started && !s.clean {
			s.open(st, raw)
			s.cur.ServerPID = new(n)
			s.cur.ReinitializedAt = st.t
			s.cur.step(StepStart, st)
		}
	}
	s.pid, s.clean, s.started, s.signal, s.died, s.startSt = n, false, true, nil, nil, st
	s.mem.started()
}

// isMySQLRecovery: InnoDB (or the binlog) recovering from a crash.
func isMySQLRecovery(msg string) bool {
	return strings.Contains(msg, "Starting crash recovery") || strings.Contains(msg, "not shut down normally") ||
		strings.Contains(msg, "not shutdown normally") || strings.Contains(msg, "Restoring possible half-written data pages")
}

func (s *mysqlState) onRecovery(st stamp, raw string) {
	if s.cur == nil {
		// The first instance in the log is recovering: the previous run
		// ended uncleanly before the log begins.
		s.cur = &CrashRestart{Engine: "mysql", Time: st.t, TimeRaw: st.raw, ZoneKnown: st.zoneKnown,
			StartupRecovery: true, Lines: []string{raw}}
		if s.pid != 0 {
			s.cur.ServerPID = new(s.pid)
			s.cur.Time, s.cur.TimeRaw, s.cur.ZoneKnown = s.startSt.t, s.startSt.raw, s.startSt.zoneKnown
			s.cur.step(StepStart, s.startSt)
		}
	} else {
		s.cur.Lines = append(s.cur.Lines, raw)
	}
	if s.cur.RecoveryAt.IsZero() && !st.t.IsZero() {
		s.cur.RecoveryAt = st.t
	}
	if !hasStep(s.cur, StepRecovery) {
		s.cur.step(StepRecovery, st)
	}
}

func hasStep(c *CrashRestart, kind string) bool {
	return slices.ContainsFunc(c.Steps, func(m Milestone) bool { return m.Kind == kind })
}

func (s *mysqlState) open(st stamp, raw string) {
	s.cur = &CrashRestart{Engine: "mysql", Time: st.t, TimeRaw: st.raw, ZoneKnown: st.zoneKnown,
		Signal: s.signal, Lines: []string{raw}}
	if s.pid != 0 {
		s.cur.KilledPID = new(s.pid)
	}
	if s.signal != nil {
		s.cur.SignalName = "signal " + strconv.Itoa(*s.signal)
	}
	s.cur.step(StepCrash, st)
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
