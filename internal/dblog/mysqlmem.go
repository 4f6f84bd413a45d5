package dblog

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

var (
	mmapFailRe = regexp.MustCompile(`mmap\((\d+) bytes\) failed; errno (\d+)`)
	poolFailRe = regexp.MustCompile(`(?i)cannot allocate memory for the buffer pool`)
	neededRe   = regexp.MustCompile(`Out of memory \(Needed (\d+) bytes\)`)
	// MariaDB 10.11.9+ reserves innodb_buffer_pool_size_max of address
	// space first: "Cannot map innodb_buffer_pool_size_max=2048m" (no errno).
	cannotMapRe = regexp.MustCompile(`Cannot map innodb_buffer_pool_size_max=(\d+)([kmgtKMGT]?)`)
	abortRe     = regexp.MustCompile(`\bAborting\b|Plugin initialization aborted|Shutdown complete|init function returned error`)
	quoteRe     = regexp.MustCompile(`^(?:> ?)+`)
	// "0 [ERROR] [MY-012681] [InnoDB] ", "0 [ERROR] ", "[ERROR] ": what
	// precedes the message after the stamp.
	levelRe     = regexp.MustCompile(`^(?:\d+ )?(?:\[\w+\] ?)+`)
	viewStampRe = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:(\d{6} |InnoDB: )`)
)

// mysqlMem follows memory errors through the lines after them.
type mysqlMem struct {
	out []MemoryError
	cur *MemoryError
	// n counts lines; curAt is where cur opened, poolAt the last line
	// naming the buffer pool; since is the first error of the running
	// start (a failed start marks them all).
	n, curAt, poolAt, since int
}

// groupLines is how many lines after an error still belong to it.
const groupLines = 4

func (m *mysqlMem) line(st stamp, msg, raw string) {
	m.n++
	if m.cur != nil && m.n-m.curAt > groupLines {
		m.cur = nil
	}
	if strings.Contains(msg, "buffer pool") {
		m.poolAt = m.n
		if m.cur != nil && m.cur.Code == "mmap" {
			m.cur.Code, m.cur.Area = "buffer-pool", "buffer pool"
		}
	}
	switch {
	case mmapFailRe.MatchString(msg):
		f := mmapFailRe.FindStringSubmatch(msg)
		e := m.open(st, msg, raw, "mmap")
		e.RequestBytes, e.Errno = u64Ptr(f[1]), units.AtoiPtr(f[2])
		if m.n-m.poolAt <= 2 {
			e.Code, e.Area = "buffer-pool", "buffer pool"
		}
	case poolFailRe.MatchString(msg):
		if m.cur == nil || m.cur.Code == "buffer-pool" && m.cur.RequestBytes == nil {
			m.open(st, msg, raw, "buffer-pool")
		}
		m.cur.Code, m.cur.Area = "buffer-pool", "buffer pool"
	case cannotMapRe.MatchString(msg):
		f := cannotMapRe.FindStringSubmatch(msg)
		e := m.open(st, msg, raw, "buffer-pool")
		e.Area, e.RequestBytes = "buffer pool (innodb_buffer_pool_size_max address space)", sizeWithUnit(f[1], f[2])
	case neededRe.MatchString(msg):
		e := m.open(st, msg, raw, "out-of-memory")
		e.RequestBytes = u64Ptr(neededRe.FindStringSubmatch(msg)[1])
	case abortRe.MatchString(msg):
		for i := m.since; i < len(m.out); i++ {
			m.out[i].StartupFailed = true
		}
	}
	if m.cur != nil && m.cur.Time.IsZero() && !st.t.IsZero() {
		m.cur.Time, m.cur.TimeRaw, m.cur.ZoneKnown = st.t, st.raw, st.zoneKnown
	}
}

// started forgets the errors of earlier starts for StartupFailed.
func (m *mysqlMem) started() { m.since, m.cur = len(m.out), nil }

func (m *mysqlMem) open(st stamp, msg, raw, code string) *MemoryError {
	msg = levelRe.ReplaceAllString(strings.TrimSpace(msg), "")
	m.out = append(m.out, MemoryError{Engine: EngineMySQL, Code: code, Message: msg, Lines: []string{raw}})
	m.cur, m.curAt = &m.out[len(m.out)-1], m.n
	return m.cur
}

// normalizeMySQL takes off what pastes add: markdown quoting and a log
// viewer's own stamp glued before the server's ("2016-03-28 01:18:40:").
func normalizeMySQL(raw string) string {
	raw = quoteRe.ReplaceAllString(raw, "")
	if m := viewStampRe.FindStringSubmatchIndex(raw); m != nil {
		raw = raw[m[2]:]
	}
	return raw
}

func u64Ptr(s string) *uint64 {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// sizeWithUnit reads MariaDB's "2048m": a number and a k/m/g/t suffix.
func sizeWithUnit(n, unit string) *uint64 {
	v := u64Ptr(n)
	if v == nil {
		return nil
	}
	shift := map[string]uint{"": 0, "k": 10, "m": 20, "g": 30, "t": 40}[strings.ToLower(unit)]
	if *v > 1<<(63-shift) {
		return nil
	}
	b := *v << shift
	return &b
}
