package oomlog

import (
	"strings"
	"time"
)

// open starts an event at line l, with what waited for it: task rows and
// Mem-Info lines of a log that starts inside a report.
func (p *parser) open(l line) {
	p.cur = &Event{Time: l.stamp, Lines: []string{l.raw}, Host: l.host}
	p.stray, p.table, p.cut, p.only, p.frame = 0, false, false, "", false
	if len(p.orphans) > 0 {
		p.cur.Tasks = p.orphans
		p.cur.Time = p.orphanStamp
		p.only = "the log starts inside the task table"
		p.cur.Lines = append(p.orphanLines, p.cur.Lines...)
	}
	p.orphans, p.orphanLines = nil, nil
}

// adoptOrphans makes an event of task rows nothing followed: a log that
// holds only part of a task table.
func (p *parser) adoptOrphans() {
	if len(p.orphans) == 0 || p.cur != nil {
		return
	}
	p.cur = &Event{Time: p.orphanStamp, Tasks: p.orphans, Lines: p.orphanLines}
	p.stray, p.table, p.cut, p.frame = 0, true, false, false
	p.only = "the log starts inside the task table"
	p.orphans, p.orphanLines = nil, nil
	p.close()
}

// close finishes the open event and decides whether it is complete.
func (p *parser) close() {
	e := p.cur
	if e == nil {
		return
	}
	p.cur = nil
	if !p.worthKeeping(e) {
		return
	}
	if e.Victim == nil && e.Summary != nil {
		e.Victim = &Victim{PID: e.Summary.PID, Name: e.Summary.Task, UID: e.Summary.UID}
		e.VictimFrom = VictimFromSummary
	}
	if row, ok := e.VictimTask(); ok && e.Victim.Name == "" {
		e.Victim.Name = row.Name // the kill line lost it
	}
	why := p.reasons(e)
	if p.only != "" {
		e.StartMissing = p.only
		why = append(why, p.only)
	}
	e.Incomplete = len(why) > 0 && (e.Victim == nil || e.VictimFrom != VictimFromKillLine || p.cut)
	e.IncompleteReason = strings.Join(why, "; ")
	p.events = append(p.events, *e)
}

// worthKeeping drops an event that holds nothing but Mem-Info: the same
// block is printed for page allocation failures and SysRq.
func (p *parser) worthKeeping(e *Event) bool {
	return e.Trigger != nil || e.Victim != nil || e.Summary != nil || e.Selected != nil || len(e.Tasks) > 0 ||
		e.TaskColumns != nil || e.Memcg != nil || e.Constraint != ConstraintUnknown || e.Reaped != nil || p.frame
}

// reasons says what the event is missing.
func (p *parser) reasons(e *Event) []string {
	var why []string
	switch {
	case e.Victim == nil && p.table:
		why = append(why, "cut off inside the task table, before the kill line")
	case e.Victim == nil:
		why = append(why, "cut off before the kill line")
	case e.VictimFrom == VictimFromSummary:
		why = append(why, "the kill line is missing: the victim is named only by the oom-kill line")
	case p.cut:
		why = append(why, "the kill line is cut off")
	}
	return why
}

// onTable files the task table's header and rows. Rows without their
// header (cut off) are read by the columns every layout shares.
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
			if len(p.orphans) == 0 {
				p.orphanStamp = l.stamp
			}
			p.orphans = append(p.orphans, t)
			p.orphanLines = append(p.orphanLines, l.raw)
		}
		return ok
	}
	if p.cur.Victim != nil {
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
		return b.Wall.Sub(a.Wall).Abs(), true
	case a.HasMonotonic && b.HasMonotonic:
		return (b.Monotonic - a.Monotonic).Abs(), true
	}
	return 0, false
}
