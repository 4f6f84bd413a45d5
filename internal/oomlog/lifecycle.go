package oomlog

import (
	"strings"
	"time"
)

// open starts an event at line l.
func (p *parser) open(l line) {
	p.cur = &Event{Time: l.stamp, Lines: []string{l.raw}}
	p.stray, p.table, p.cut, p.only = 0, false, false, ""
	if len(p.orphans) > 0 {
		p.cur.Tasks = p.orphans
		p.cur.Lines = append(p.orphanLines, p.cur.Lines...)
		p.only = "the log starts inside the task table"
		p.orphans, p.orphanLines = nil, nil
	}
}

// close finishes the open event and decides whether it is complete.
func (p *parser) close() {
	e := p.cur
	if e == nil {
		return
	}
	p.cur = nil
	var why []string
	switch {
	case e.Victim == nil && p.table:
		why = append(why, "cut off inside the task table, before the kill line")
	case e.Victim == nil:
		why = append(why, "cut off before the kill line")
	case p.cut:
		why = append(why, "the kill line is cut off")
	}
	if p.only != "" {
		why = append(why, p.only)
	}
	if len(why) > 0 {
		e.Incomplete = true
		e.IncompleteReason = strings.Join(why, "; ")
	}
	p.events = append(p.events, *e)
}

// onTable files the task table's header and rows.
func (p *parser) onTable(l line, body string) bool {
	if cols, ok := parseHeader(body); ok {
		if p.cur == nil {
			p.open(l)
			p.only = "the log starts after the trigger line"
		} else {
			p.cur.Lines = append(p.cur.Lines, l.raw)
		}
		p.cur.TaskColumns, p.table = cols, true
		return true
	}
	if p.cur == nil {
		t, ok := parseRow(body, nil, p.opt.PageSize)
		if ok {
			p.orphans = append(p.orphans, t)
			p.orphanLines = append(p.orphanLines, l.raw)
		}
		return ok
	}
	if !p.table && p.cur.TaskColumns == nil {
		return false
	}
	t, ok := parseRow(body, p.cur.TaskColumns, p.opt.PageSize)
	if ok {
		p.cur.Tasks = append(p.cur.Tasks, t)
		p.cur.Lines = append(p.cur.Lines, l.raw)
	}
	return ok
}

// tooFar reports whether line l is so much later than the open event that
// the event's kill line will not come.
func (p *parser) tooFar(l line) bool {
	d, ok := gap(p.cur.Time, l.stamp)
	return ok && d > strayGap
}

// gap is the time from a to b when both carry the same clock.
func gap(a, b Stamp) (time.Duration, bool) {
	switch {
	case !a.Wall.IsZero() && !b.Wall.IsZero():
		return abs(b.Wall.Sub(a.Wall)), true
	case a.HasMonotonic && b.HasMonotonic:
		return abs(b.Monotonic - a.Monotonic), true
	}
	return 0, false
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
