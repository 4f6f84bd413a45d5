package dblog

import (
	"cmp"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/loglines"
	"github.com/dbmem/dbmem/internal/units"
)

// OracleLog is what ReadOracle found in an alert log or trace file.
type OracleLog struct {
	MemoryErrors []MemoryError
	Terminations []Termination
	Stats        loglines.Stats
}

var (
	// "Sat Jun 11 17:33:26 2005", "Mon Sep 1 03:49:17 2008" (alert logs
	// before 12.2), "2024-08-29T05:58:18.611120+08:00" (12.2+), and a
	// trace file's "*** 2008-09-01 03:46:42.179".
	oraCtimeRe = regexp.MustCompile(`^[A-Z][a-z]{2} [A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d \d{4}\s*$`)
	oraISORe   = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)([+-]\d\d:\d\d|Z)?\s*$`)
	oraTraceRe = regexp.MustCompile(`^\*\*\* (\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?)`)
	errorsInRe = regexp.MustCompile(`Errors in file (\S+?\.trc)(?: \(incident=(\d+)\))?:`)
	traceName  = regexp.MustCompile(`_([a-z][a-z0-9]*)_(\d+)(?:_i\d+)?\.trc$`)
	ora04030Re = regexp.MustCompile(`ORA-04030: out of process memory when trying to allocate (\d*) ?bytes \(([^)]*)\)`)
	ora04031Re = regexp.MustCompile(`ORA-04031: unable to allocate (\d+) bytes of shared memory \("([^"]*)"`)
	ora04036Re = regexp.MustCompile(`ORA-04036: PGA memory used by the instance`)
	pgaLimitRe = regexp.MustCompile(`exceeds PGA_AGGREGATE_LIMIT of (\d+ [KMGT]?B)`)
	ora27102Re = regexp.MustCompile(`ORA-27102: out of memory`)
	osErrRe    = regexp.MustCompile(`^[\w-]+ Error: (\d+): (.+)$`)
	ora27300Re = regexp.MustCompile(`ORA-27300: OS system dependent operation:\s*(\w+) failed with status: (\d+)`)
	ora27301Re = regexp.MustCompile(`ORA-27301: OS failure message: (.+)$`)
	ora00600Re = regexp.MustCompile(`ORA-00600: internal error code, arguments: (\[[^\]]*\])`)
	terminRe   = regexp.MustCompile(`^(\w+)(?: \(ospid: (\d+)\))?: terminating (?:the )?instance due to (?:ORA[- ])?error (\d+)`)
	termByRe   = regexp.MustCompile(`Instance terminated by (\w+), pid = (\d+)`)
)

// ReadOracle reads an Oracle alert log (or a trace file, or an error stack
// a client printed): the memory errors with their size, heap, errno,
// process and time, ORA-00600 after a memory error, and the instance's
// terminations. Times come from the alert log's own stamp lines; a line
// that follows none has no time. On a read error it returns what it found.
func (o Options) ReadOracle(r io.Reader) (OracleLog, error) {
	if o.Location == nil {
		o.Location = time.UTC
	}
	s := &oraState{loc: o.Location}
	stats, err := loglines.Read(r, maxLine, s.line)
	s.out.Stats = stats
	if err != nil {
		return s.out, fmt.Errorf("read Oracle alert log: %w", err)
	}
	return s.out, nil
}

type oraState struct {
	loc   *time.Location
	out   OracleLog
	now   stamp
	trace string // the "Errors in file" the next ORA- lines belong to
	inc   string
	cur   *MemoryError
}

func (s *oraState) line(raw string) {
	l := strings.TrimSpace(strings.TrimRight(raw, "\r"))
	if len(l) > maxDumpLine || l == "" {
		return
	}
	if st, ok := s.stampLine(l); ok {
		s.now, s.trace, s.inc, s.cur = st, "", "", nil
		return
	}
	if m := errorsInRe.FindStringSubmatch(l); m != nil {
		s.trace, s.inc, s.cur = m[1], m[2], nil
		return
	}
	if s.termination(l, raw) || s.follow(l, raw) {
		return
	}
	s.memoryError(l, raw)
}

// stampLine reads a line that is only a time.
func (s *oraState) stampLine(l string) (stamp, bool) {
	switch {
	case oraCtimeRe.MatchString(l):
		t, err := time.ParseInLocation("Mon Jan 2 15:04:05 2006", strings.Join(strings.Fields(l), " "), s.loc)
		if err == nil {
			return stamp{raw: l, t: t}, true
		}
	case oraISORe.MatchString(l):
		m := oraISORe.FindStringSubmatch(l)
		if m[2] != "" {
			if t, err := time.Parse("2006-01-02T15:04:05.999999999Z07:00", m[1]+m[2]); err == nil {
				return stamp{raw: l, t: t, zoneKnown: true}, true
			}
		}
		if t, err := time.ParseInLocation("2006-01-02T15:04:05.999999999", m[1], s.loc); err == nil {
			return stamp{raw: l, t: t}, true
		}
	case oraTraceRe.MatchString(l):
		m := oraTraceRe.FindStringSubmatch(l)
		if t, err := time.ParseInLocation("2006-01-02 15:04:05.999999999", strings.Replace(m[1], "T", " ", 1), s.loc); err == nil {
			return stamp{raw: m[1], t: t}, true
		}
	}
	return stamp{}, false
}

// follow adds the lines that complete the error before: the OS error of
// ORA-27102, the message of ORA-27300, the limit of ORA-04036.
func (s *oraState) follow(l, raw string) bool {
	c := s.cur
	if c == nil {
		return false
	}
	switch {
	case c.Code == "ORA-27102" && osErrRe.MatchString(l):
		c.Errno, c.Area = units.AtoiPtr(osErrRe.FindStringSubmatch(l)[1]), l
	case c.Code == "ORA-27300" && ora27301Re.MatchString(l):
		c.Area += ": " + ora27301Re.FindStringSubmatch(l)[1]
	case c.Code == "ORA-04036" && pgaLimitRe.MatchString(l):
		c.Area = "PGA_AGGREGATE_LIMIT of " + pgaLimitRe.FindStringSubmatch(l)[1]
	case strings.HasPrefix(l, "ORA-27302"), strings.HasPrefix(l, "Additional information"):
	default:
		return false
	}
	c.Lines = append(c.Lines, raw)
	return true
}

// memoryError opens an error for an ORA- line about memory.
func (s *oraState) memoryError(l, raw string) {
	var e MemoryError
	switch {
	case ora04030Re.MatchString(l):
		m := ora04030Re.FindStringSubmatch(l)
		e = MemoryError{Code: "ORA-04030", RequestBytes: u64Ptr(m[1]), Area: strings.Trim(m[2], ", ")}
	case ora04031Re.MatchString(l):
		m := ora04031Re.FindStringSubmatch(l)
		e = MemoryError{Code: "ORA-04031", RequestBytes: u64Ptr(m[1]), Area: m[2]}
	case ora04036Re.MatchString(l):
		e = MemoryError{Code: "ORA-04036", Area: "PGA_AGGREGATE_LIMIT"}
	case ora27102Re.MatchString(l):
		e = MemoryError{Code: "ORA-27102"}
	case ora27300Re.MatchString(l):
		m := ora27300Re.FindStringSubmatch(l)
		e = MemoryError{Code: "ORA-27300", Errno: units.AtoiPtr(m[2]), Area: m[1]}
	case ora00600Re.MatchString(l) && len(s.out.MemoryErrors) > 0:
		e = MemoryError{Code: "ORA-00600", Area: ora00600Re.FindStringSubmatch(l)[1]}
	default:
		if c := s.cur; c != nil && c.Code == "ORA-04036" && pgaLimitRe.MatchString(l) {
			s.follow(l, raw)
		}
		return
	}
	s.add(e, l, raw)
}

func (s *oraState) add(e MemoryError, l, raw string) {
	e.Engine, e.Message, e.Lines = EngineOracle, l, []string{raw}
	e.Time, e.TimeRaw, e.ZoneKnown = s.now.t, s.now.raw, s.now.zoneKnown
	e.TraceFile, e.Incident = s.trace, s.inc
	if m := traceName.FindStringSubmatch(s.trace); m != nil {
		e.Process, e.PID = m[1], units.AtoiPtr(m[2])
	}
	s.out.MemoryErrors = append(s.out.MemoryErrors, e)
	s.cur = &s.out.MemoryErrors[len(s.out.MemoryErrors)-1]
}

// termination reads "CKPT: terminating instance due to error 4030" and
// "Instance terminated by CKPT, pid = 10317" (one termination).
func (s *oraState) termination(l, raw string) bool {
	var by, code string
	var pid *int
	if m := terminRe.FindStringSubmatch(l); m != nil {
		by, pid, code = m[1], units.AtoiPtr(m[2]), oraCode(m[3])
	} else if m := termByRe.FindStringSubmatch(l); m != nil {
		by, pid = m[1], units.AtoiPtr(m[2])
	} else {
		return false
	}
	ts := s.out.Terminations
	if n := len(ts); n > 0 && ts[n-1].By == by && ts[n-1].Time.Equal(s.now.t) {
		t := &ts[n-1]
		t.Lines = append(t.Lines, raw)
		if t.PID == nil {
			t.PID = pid
		}
		t.Error = cmp.Or(t.Error, code)
		return true
	}
	s.out.Terminations = append(ts, Termination{Time: s.now.t, TimeRaw: s.now.raw, ZoneKnown: s.now.zoneKnown, By: by, PID: pid,
		Error: code, Lines: []string{raw}})
	return true
}

// oraCode writes an error number as its ORA- code ("4030" is ORA-04030).
func oraCode(n string) string {
	v := units.AtoiPtr(n)
	if v == nil {
		return ""
	}
	return fmt.Sprintf("ORA-%05d", *v)
}
