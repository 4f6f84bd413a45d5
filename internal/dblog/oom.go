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
	// ZoneWritten is the zone as printed ("CST"), "" when none was.
	ZoneWritten string
	PID         int
	// Kind: OOMOutOfMemory, OOMFork (a connection refused) or OOMIoUring
	// (PostgreSQL 18 could not set up its io_uring queues: the locked
	// memory limit, not RAM).
	Kind string
	// Severity is ERROR (the query failed) or FATAL (the session ended).
	Severity string
	Message  string
	Detail   string
	// RequestBytes and Context come from "Failed on request of size N in
	// memory context "X"."; Context is empty before PostgreSQL 9.6.
	// RequestRedacted: the size was printed but hidden ("1xxxxxxxxx"),
	// so it is unknown (RequestBytes 0), not 1.
	RequestBytes    uint64
	RequestRedacted bool
	Context         string
	// ErrorContext is the CONTEXT line; AutovacuumTarget the table an
	// autovacuum or autoanalyze worker was processing.
	ErrorContext     string
	AutovacuumTarget string
	Query            string
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

var (
	// "Failed on request of size 536870912 in memory context "ExecutorState"."
	requestRe = regexp.MustCompile(`Failed on request of size (\S+?)(?:\.?$| in memory context "([^"]*)")`)
	// "automatic vacuum of table "db.schema.t"", "automatic analyze of table ...".
	autovacRe = regexp.MustCompile(`automatic (?:vacuum|analyze) of table "([^"]+)"`)
)

// Kinds of out-of-memory errors.
const (
	OOMOutOfMemory = "out-of-memory"  // ERROR/FATAL:  out of memory
	OOMFork        = "fork"           // could not fork new process for connection: Cannot allocate memory
	OOMIoUring     = "io-uring-setup" // could not setup io_uring queue: Cannot allocate memory
)

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
	kind := oomKind(e)
	if kind == "" {
		return OutOfMemoryError{}, false
	}
	o := OutOfMemoryError{Time: e.st.t, TimeRaw: e.st.raw, ZoneKnown: e.st.zoneKnown, ZoneWritten: e.st.zone, PID: e.pid, Kind: kind,
		Severity: e.severity, Message: e.message, Detail: e.detail, Query: e.query, ErrorContext: e.context, Lines: e.lines}
	if m := requestRe.FindStringSubmatch(e.detail); m != nil && len(e.detail) < maxDumpLine {
		n, err := strconv.ParseUint(m[1], 10, 64)
		o.RequestBytes, o.RequestRedacted = n, err != nil
		o.Context = m[2]
	}
	if m := autovacRe.FindStringSubmatch(e.context); m != nil {
		o.AutovacuumTarget = m[1]
	}
	return o, true
}

// oomKind says which out-of-memory message e is, "" for none.
func oomKind(e entry) string {
	switch {
	case strings.HasPrefix(e.message, "could not setup io_uring queue"):
		return OOMIoUring
	case e.severity == "LOG" && strings.HasPrefix(e.message, "could not fork") && strings.Contains(e.message, "Cannot allocate memory"):
		return OOMFork
	case (e.severity == "ERROR" || e.severity == "FATAL") && strings.HasPrefix(e.message, "out of memory"):
		return OOMOutOfMemory
	}
	return ""
}
