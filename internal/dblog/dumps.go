package dblog

import (
	"cmp"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// ContextDump is one backend's memory contexts as
// pg_log_backend_memory_contexts (PostgreSQL 14+) has it write them to the
// server log: one LOG entry per context, each with the backend's PID, then
// "Grand total". Depth is normalised: TopMemoryContext is 0 on every
// version.
type ContextDump struct {
	// PID is the backend's (0 when the log line prefix has no %p: such a
	// dump is told apart from others only when it is not interleaved).
	PID int
	// Time is the first line's; End the last line's.
	Time      time.Time
	TimeRaw   string
	End       time.Time
	ZoneKnown bool
	// Header is true when "logging memory contexts of PID N" came first.
	Header     bool
	Contexts   []MemoryContext
	GrandTotal *MemoryContext
	// Complete is true when the dump starts with TopMemoryContext, ends
	// with Grand total, and the contexts add up to it.
	Complete bool
	// Problem says why it is not complete: cut, started before the text
	// read, interleaved, or lines missing.
	Problem string
	// top is the printed level of TopMemoryContext (0 when not seen);
	// seq orders dumps by their first line.
	top, seq int
}

// Sums adds up the contexts' own figures (each line counts its context
// alone; "N more child contexts" lines count those children).
func (d ContextDump) Sums() (total, free, used uint64) {
	for _, c := range d.Contexts {
		total += c.TotalBytes
		free += c.FreeBytes
		used += c.UsedBytes
	}
	return total, free, used
}

// headerRe is the line the backend writes before its dump. It is
// translated with lc_messages; dumps are recognised without it.
var headerRe = regexp.MustCompile(`^logging memory contexts of PID (\d+)$`)

// dumps assembles ContextDumps from LOG entries, by PID.
type dumps struct {
	seq  int
	open map[int]*ContextDump
	// header remembers a header until its first context line.
	header map[int]bool
	done   []ContextDump
}

// add takes a LOG entry; ok is false when it is not part of a dump.
func (d *dumps) add(e entry) bool {
	if e.severity != "LOG" || len(e.message) > maxDumpLine {
		return false
	}
	if headerRe.MatchString(e.message) {
		d.noteHeader(e.pid)
		return true
	}
	if !strings.HasPrefix(e.message, "level: ") && !strings.HasPrefix(e.message, "Grand total: ") {
		return false
	}
	l, ok := ParseContextLine(e.message)
	if !ok || l.Level < 0 && !l.Grand {
		return false
	}
	switch {
	case l.Grand:
		d.grand(e, l)
	case l.Name == "TopMemoryContext" && l.MoreChildren == 0 && l.Level <= 1:
		d.start(e, l)
	default:
		d.line(e, l)
	}
	return true
}

func (d *dumps) next() int { d.seq++; return d.seq }

func (d *dumps) init() {
	if d.open == nil {
		d.open, d.header = map[int]*ContextDump{}, map[int]bool{}
	}
}

func (d *dumps) noteHeader(pid int) {
	d.init()
	if cur := d.open[pid]; cur != nil {
		d.cut(pid, "cut: another dump of the same backend started before its Grand total line")
	}
	d.header[pid] = true
}

// start opens a dump at its TopMemoryContext line.
func (d *dumps) start(e entry, l ContextLine) {
	d.init()
	if d.open[e.pid] != nil {
		why := "cut: another dump of the same backend started before its Grand total line"
		if e.pid == 0 {
			why = "interleaved with another dump in a log whose lines carry no PID (log_line_prefix without %p): they cannot be told apart"
		}
		d.cut(e.pid, why)
	}
	c := &ContextDump{PID: e.pid, Time: e.st.t, TimeRaw: e.st.raw, End: e.st.t, ZoneKnown: e.st.zoneKnown,
		Header: d.header[e.pid], Contexts: []MemoryContext{withDepth(l, l.Level)}, top: l.Level, seq: d.next()}
	delete(d.header, e.pid)
	d.open[e.pid] = c
}

// withDepth turns the printed level into a depth below TopMemoryContext,
// whose level is top. A "N more child contexts" line is printed with its
// parent's level (the stderr form indents it one step further): its depth
// is its children's, as in the stderr form.
func withDepth(l ContextLine, top int) MemoryContext {
	c := l.MemoryContext
	c.Depth = max(l.Level-top, 0)
	if c.MoreChildren > 0 {
		c.Depth++
	}
	return c
}

func (d *dumps) line(e entry, l ContextLine) {
	d.init()
	c := d.open[e.pid]
	if c == nil {
		c = &ContextDump{PID: e.pid, Time: e.st.t, TimeRaw: e.st.raw, ZoneKnown: e.st.zoneKnown,
			Problem: "starts before the text read: its first lines (TopMemoryContext) are missing (the log was rotated or read from the middle)", seq: d.next()}
		d.open[e.pid] = c
	}
	c.Contexts = append(c.Contexts, withDepth(l, c.top))
	c.End = e.st.t
}

func (d *dumps) grand(e entry, l ContextLine) {
	d.init()
	c := d.open[e.pid]
	if c == nil {
		d.done = append(d.done, ContextDump{PID: e.pid, Time: e.st.t, TimeRaw: e.st.raw, End: e.st.t, ZoneKnown: e.st.zoneKnown,
			GrandTotal: &l.MemoryContext, Problem: "only its Grand total line is in the text read (the log was rotated or read from the middle)", seq: d.next()})
		return
	}
	g := l.MemoryContext
	c.GrandTotal, c.End = &g, e.st.t
	total, _, _ := c.Sums()
	switch {
	case c.Problem != "":
	case total != g.TotalBytes:
		c.Problem = fmt.Sprintf("lines missing or mixed: the contexts add up to %d bytes, its Grand total says %d", total, g.TotalBytes)
	default:
		c.Complete = true
	}
	d.done = append(d.done, *c)
	delete(d.open, e.pid)
}

// cut closes the open dump of pid as incomplete.
func (d *dumps) cut(pid int, why string) {
	c := d.open[pid]
	if c == nil {
		return
	}
	c.Problem = cmp.Or(c.Problem, why)
	d.done = append(d.done, *c)
	delete(d.open, pid)
}

// finish closes every open dump at the end of the text: each is cut.
// Dumps are returned in the order they started.
func (d *dumps) finish() []ContextDump {
	pids := make([]int, 0, len(d.open))
	for pid := range d.open {
		pids = append(pids, pid)
	}
	sort.Ints(pids)
	for _, pid := range pids {
		d.cut(pid, "cut: the text read ends before its Grand total line (the dump was still being written, or the log was truncated)")
	}
	sort.SliceStable(d.done, func(i, j int) bool { return d.done[i].seq < d.done[j].seq })
	return d.done
}
