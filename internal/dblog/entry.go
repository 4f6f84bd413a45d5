package dblog

import (
	"cmp"
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
	// user is csvlog's user_name or jsonlog's user; prefix is a stderr
	// line's log_line_prefix output (tempfile.go reads %u from it).
	user, prefix string
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
	barePID    = regexp.MustCompile(`^\s*(\d+)(?:[\s:]|$)`)
)

// maxDumpLine bounds memory context dump lines (idents are cut at 100 bytes).
const maxDumpLine = 4 << 10

// splitLine reads "prefix SEVERITY:  text". ok is false for lines without a
// severity, such as memory context dump lines or a query's continuation.
// Logs as people post them are read too: a severity glued to a copied
// stamp ("20:31:13LOG:  "), one space after it ("LOG: text"), quoting and
// a container runtime's prefix in front ("postgres_1  | ").
func splitLine(s string, loc *time.Location) (e entry, ok bool) {
	head := s
	if len(head) > maxPrefix {
		head = head[:maxPrefix]
	}
	start, sev, end := findSeverity(head, ":  ")
	if sev == "" {
		start, sev, end = findSeverity(head, ": ")
	}
	if sev == "" {
		return e, false
	}
	prefix := s[:start]
	var n int
	e.st, n = parseStamp(prefix, loc)
	e.pid = prefixPID(prefix[n:])
	e.severity, e.message, e.lines, e.prefix = sev, strings.TrimSpace(s[end:]), []string{s}, prefix
	return e, true
}

// findSeverity finds the first "SEVERITY" + sep in head: where the severity
// starts, what it is and where its message starts.
func findSeverity(head, sep string) (start int, sev string, end int) {
	for off := 0; off < len(head); {
		i := strings.Index(head[off:], sep)
		if i < 0 {
			return 0, "", 0
		}
		i += off
		start = strings.LastIndexAny(head[:i], " \t]|*>`") + 1
		if word := head[start:i]; severities[word] {
			return start, word, i + len(sep)
		}
		if word := gluedSeverity(head[start:i]); word != "" {
			return i - len(word), word, i + len(sep)
		}
		off = i + 1
	}
	return 0, "", 0
}

// gluedSeverity returns the severity at the end of a word whose start is a
// time ("20:31:13LOG"), as docker's UI copies them.
func gluedSeverity(word string) string {
	for _, sev := range []string{"LOG", "ERROR", "FATAL", "PANIC", "WARNING", "DETAIL", "HINT", "STATEMENT", "CONTEXT"} {
		if rest, ok := strings.CutSuffix(word, sev); ok && rest != "" && rest[len(rest)-1] >= '0' && rest[len(rest)-1] <= '9' {
			return sev
		}
	}
	return ""
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
	e.pid = cmp.Or(e.pid, d.pid) // the message's own line had no prefix, its detail has
	if e.st.t.IsZero() && !d.st.t.IsZero() {
		e.st = d.st
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
