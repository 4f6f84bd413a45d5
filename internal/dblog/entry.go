package dblog

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// entry is one PostgreSQL log message with the detail lines that follow it.
type entry struct {
	st       stamp
	pid      int
	severity string
	message  string
	detail   string
	hint     string
	context  string
	query    string // STATEMENT (stderr), query (csvlog), statement (jsonlog)
	lines    []string
}

// severities are the words PostgreSQL puts before ":  ".
var severities = map[string]bool{
	"LOG": true, "ERROR": true, "FATAL": true, "PANIC": true, "WARNING": true, "NOTICE": true,
	"INFO": true, "DEBUG": true, "DEBUG1": true, "DEBUG2": true, "DEBUG3": true, "DEBUG4": true,
	"DEBUG5": true, "DETAIL": true, "HINT": true, "STATEMENT": true, "CONTEXT": true, "QUERY": true,
	"LOCATION": true,
}

// maxPrefix bounds where the severity may start: log_line_prefix output.
const maxPrefix = 512

var (
	bracketPID = regexp.MustCompile(`\[(\d+)(?:-\d+)?\]`)
	barePID    = regexp.MustCompile(`^\s*(\d+)\b`)
)

// maxDumpLine bounds memory context dump lines (idents are cut at 100 bytes).
const maxDumpLine = 4 << 10

// splitLine reads "prefix SEVERITY:  text". ok is false for lines without a
// severity, such as memory context dump lines or a query's continuation.
func splitLine(s string, loc *time.Location) (e entry, ok bool) {
	head := s
	if len(head) > maxPrefix {
		head = head[:maxPrefix]
	}
	for off := 0; off < len(head); {
		i := strings.Index(head[off:], ":  ")
		if i < 0 {
			return e, false
		}
		i += off
		start := strings.LastIndexAny(head[:i], " \t]") + 1
		if severities[head[start:i]] {
			prefix := s[:start]
			e.st, _ = parseStamp(prefix, loc)
			e.pid = prefixPID(prefix[len(e.st.raw):])
			e.severity, e.message, e.lines = head[start:i], s[i+3:], []string{s}
			return e, true
		}
		off = i + 1
	}
	return e, false
}

// prefixPID finds %p: "[1234]" (stock and Debian prefixes) or the first
// number after the time ("%m %p ...").
func prefixPID(rest string) int {
	if m := bracketPID.FindStringSubmatch(rest); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if m := barePID.FindStringSubmatch(rest); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// isDetail reports whether a severity belongs to the message before it.
func isDetail(sev string) bool {
	switch sev {
	case "DETAIL", "HINT", "STATEMENT", "CONTEXT", "QUERY", "LOCATION":
		return true
	}
	return false
}

// attach adds a DETAIL/HINT/STATEMENT/CONTEXT line to e.
func (e *entry) attach(d entry) {
	switch d.severity {
	case "DETAIL":
		e.detail = d.message
	case "HINT":
		e.hint = d.message
	case "STATEMENT":
		e.query = d.message
	case "CONTEXT":
		e.context = d.message
	}
	e.lines = append(e.lines, d.lines...)
}

// continueWith appends a tab-indented continuation line to the field the
// last line filled (a multi-line query or detail).
func (e *entry) continueWith(raw string) {
	text := strings.TrimPrefix(raw, "\t")
	switch {
	case e.query != "":
		e.query += "\n" + text
	case e.detail != "":
		e.detail += "\n" + text
	default:
		e.message += "\n" + text
	}
	e.lines = append(e.lines, raw)
}
