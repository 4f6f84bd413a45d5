package dblog

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// OutOfMemoryError is PostgreSQL's "ERROR:  out of memory": an allocation
// failed (strict overcommit, a ulimit, a cgroup without swap never gets
// here: it kills) and only that query or session ended.
type OutOfMemoryError struct {
	Time      time.Time
	TimeRaw   string
	ZoneKnown bool
	PID       int
	// Severity is ERROR (the query failed) or FATAL (the session ended).
	Severity string
	Message  string
	Detail   string
	// RequestBytes and Context come from "Failed on request of size N in
	// memory context "X"."; Context is empty before PostgreSQL 9.6.
	RequestBytes uint64
	Context      string
	Query        string
	// Contexts is the memory context dump printed just before the error;
	// GrandTotal its last line.
	Contexts   []MemoryContext
	GrandTotal *MemoryContext
	Lines      []string
}

// MemoryContext is one line of a memory context dump.
type MemoryContext struct {
	// Name is the context name; Ident what follows the counts (a query,
	// an index name) when printed.
	Name, Ident string
	// Depth is the indentation level, 0 for TopMemoryContext.
	Depth int
	// MoreChildren is N for "N more child contexts containing ...".
	MoreChildren int
	TotalBytes   uint64
	Blocks       uint64
	FreeBytes    uint64
	FreeChunks   uint64
	UsedBytes    uint64
}

// "Failed on request of size 536870912 in memory context "ExecutorState"."
var requestRe = regexp.MustCompile(`Failed on request of size (\d+)(?: in memory context "([^"]*)")?`)

// parseDumpLine reads one line of a memory context dump written to stderr
// (or, pasted without its prefix, in the LOG form): ParseContextLine.
func parseDumpLine(raw string) (c MemoryContext, grand bool, ok bool) {
	l, ok := ParseContextLine(raw)
	return l.MemoryContext, l.Grand, ok
}

// Largest returns the n named contexts that hold the most memory.
func (o OutOfMemoryError) Largest(n int) []MemoryContext {
	var named []MemoryContext
	for _, c := range o.Contexts {
		if c.MoreChildren == 0 {
			named = append(named, c)
		}
	}
	sort.SliceStable(named, func(i, j int) bool { return named[i].TotalBytes > named[j].TotalBytes })
	if len(named) > n {
		named = named[:n]
	}
	return named
}

// outOfMemory builds the error from an entry, or ok is false: "ERROR:  out
// of memory", or the postmaster's "could not fork new process for
// connection: Cannot allocate memory" (the connection was refused).
func outOfMemory(e entry) (OutOfMemoryError, bool) {
	fork := e.severity == "LOG" && strings.HasPrefix(e.message, "could not fork") && strings.Contains(e.message, "Cannot allocate memory")
	if !fork && ((e.severity != "ERROR" && e.severity != "FATAL") || !strings.HasPrefix(e.message, "out of memory")) {
		return OutOfMemoryError{}, false
	}
	o := OutOfMemoryError{Time: e.st.t, TimeRaw: e.st.raw, ZoneKnown: e.st.zoneKnown, PID: e.pid,
		Severity: e.severity, Message: e.message, Detail: e.detail, Query: e.query, Lines: e.lines}
	if m := requestRe.FindStringSubmatch(e.detail); m != nil && len(e.detail) < maxDumpLine {
		o.RequestBytes, _ = strconv.ParseUint(m[1], 10, 64)
		o.Context = m[2]
	}
	return o, true
}
