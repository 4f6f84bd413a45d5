package oomlog

import (
	"strings"
	"time"
)

// maxStray bounds the unrecognised lines (stack, cgroup stats) an event
// takes before its kill line; past it the report counts as cut off.
const maxStray = 600

// maxBody is longer than any line of an OOM report (the oom-kill summary
// with two long cgroup paths is under 1 KiB); longer lines are skipped and
// counted.
const maxBody = 8 << 10

// strayGap closes an event without a kill line when the log moves on.
const strayGap = 30 * time.Second

// parser groups lines into events.
type parser struct {
	opt     Options
	sp      splitter
	pending *line
	events  []Event
	cur     *Event
	// stray counts unrecognised lines in cur; table is true inside the
	// task table; cut is true when cur's kill line was truncated.
	stray int
	table bool
	cut   bool
	// only notes a reason the open event is incomplete beyond the kill line.
	only string
	// orphans are task rows seen with no open event (the log starts inside
	// a report); they go to the event opened next, or make one at the end.
	orphans     []Task
	orphanLines []string
	orphanStamp Stamp
	// frame is true when the open event showed a call trace of the OOM killer.
	frame bool
	// long counts lines too long to be part of a report.
	long int
}

// handle files one joined line.
func (p *parser) handle(l line) {
	if len(l.body) > maxBody {
		p.long++
		return
	}
	if l.other || strings.TrimSpace(l.body) == "" {
		return
	}
	body := strings.TrimSpace(l.body)
	if p.cur != nil && p.cur.Victim == nil && p.tooFar(l) {
		p.close()
	}
	switch {
	case p.onTrigger(l, body), p.onKill(l, body), p.onSelect(l, body),
		p.onReaped(l, body), p.onSummary(l, body), p.onTable(l, body):
		return
	}
	if p.cur == nil {
		p.onOutside(l, body)
		return
	}
	p.onReportLine(l, body)
}

// onOutside files a line seen with no open event. A line that belongs to a
// report (a call trace of the OOM killer, a memory cgroup line, Mem-Info)
// opens one: the log starts inside a report. An event that gets nothing
// but Mem-Info is dropped when it closes (show_mem also runs for page
// allocation failures). Other lines end the task rows waiting for a kill.
func (p *parser) onOutside(l line, body string) {
	frame := isOOMFrame(body)
	if !frame && !isContext(body) {
		p.orphans, p.orphanLines = nil, nil
		return
	}
	p.open(l)
	p.only = "the log starts after the trigger line"
	if !p.applyKnown(p.cur, body) {
		p.frame = applyTraceFrame(p.cur, body) && frame
	}
}

// isContext reports a line that only appears inside an OOM report.
func isContext(body string) bool {
	return taskInRe.MatchString(body) || usageRe.MatchString(body) || strings.HasPrefix(body, memcgStatsPrefix) ||
		applyMemInfo(&MemInfo{}, body, 4096)
}

// memcgStatsPrefix starts the stats a memory cgroup OOM prints.
const memcgStatsPrefix = "Memory cgroup stats for "

// applyKnown files a line of a report other than its main lines; it
// reports whether it was one.
func (p *parser) applyKnown(e *Event, body string) bool {
	if strings.HasPrefix(body, memcgStatsPrefix) {
		setConstraint(e, ConstraintMemcg, ConstraintFromCgroup)
		return true
	}
	return applyUsage(e, body) || applyTaskIn(e, body) || applyCPULine(e, body) ||
		applyCpusetLine(e, body) || strings.HasPrefix(body, "Tasks state") || p.applyMem(e, body)
}

// onReportLine files a line inside an open report.
func (p *parser) onReportLine(l line, body string) {
	e := p.cur
	known := p.applyKnown(e, body)
	if e.Victim != nil && !known {
		p.close() // the report is over; this line belongs to something else
		return
	}
	e.Lines = append(e.Lines, l.raw)
	if known {
		return
	}
	if applyTraceFrame(e, body) {
		p.frame = p.frame || isOOMFrame(body)
		return
	}
	p.stray++
	p.table = false
	if p.stray > maxStray {
		p.close()
	}
}

// applyMem files a Mem-Info line of the open report (before its kill line).
func (p *parser) applyMem(e *Event, body string) bool {
	if e.Victim != nil {
		return false
	}
	m := e.MemInfo
	if m == nil {
		m = &MemInfo{}
	}
	if !applyMemInfo(m, body, p.opt.PageSize) {
		return false
	}
	e.MemInfo = m
	return true
}

func (p *parser) onTrigger(l line, body string) bool {
	t, ok := parseTrigger(body)
	if !ok {
		return false
	}
	p.close()
	p.open(l)
	p.cur.Trigger = t
	return true
}

// onSummary files the oom-kill:constraint= line. One that names another
// pid than the open event's victim starts a new event: a second victim
// named only by its summary line.
func (p *parser) onSummary(l line, body string) bool {
	if !strings.Contains(body, "oom-kill:") || !strings.Contains(body, "constraint=") {
		return false
	}
	pid := summaryPID(body)
	e := p.cur
	switch {
	case e == nil:
		p.open(l)
	case (e.Victim != nil && pid != 0 && pid != e.Victim.PID) || (e.Summary != nil && pid != e.Summary.PID):
		p.close()
		p.open(l)
	default:
		e.Lines = append(e.Lines, l.raw)
	}
	applySummary(p.cur, body)
	return true
}

// onKill files a kill line, or an "already exiting" line.
func (p *parser) onKill(l line, body string) bool {
	v, cut, ok := parseKilled(body)
	if !ok {
		if v, ok = parseExiting(body); !ok {
			return false
		}
	}
	if prev := p.sameVictim(v, l); prev != nil {
		prev.Lines = append(prev.Lines, l.raw) // printed twice
		return true
	}
	if p.cur == nil || p.cur.Victim != nil || (p.cur.Summary != nil && p.cur.Summary.PID != v.PID) {
		p.close()
		p.open(l)
	}
	p.cur.Victim, p.cur.VictimFrom, p.cut = v, VictimFromKillLine, cut
	if s := p.cur.Summary; s != nil && s.PID == v.PID && v.UID == nil {
		v.UID = s.UID
	}
	setConstraint(p.cur, messageConstraint(v.Message), ConstraintFromKillLine)
	p.cur.Lines = append(p.cur.Lines, l.raw)
	return true
}

// Where the victim was named.
const (
	VictimFromKillLine = "the kill line"
	VictimFromSummary  = "the oom-kill line"
	VictimFromReaper   = "the oom_reaper line"
)

// sameVictim returns the open or last event if it already has this victim.
func (p *parser) sameVictim(v *Victim, l line) *Event {
	e := p.cur
	if e == nil && len(p.events) > 0 {
		e = &p.events[len(p.events)-1]
	}
	if e == nil || e.Victim == nil || e.VictimFrom != VictimFromKillLine || e.Victim.PID != v.PID || e.Victim.Name != v.Name {
		return nil
	}
	if d, ok := gap(e.Time, l.stamp); ok && d > dedupeWindow {
		return nil
	}
	return e
}

func (p *parser) onSelect(l line, body string) bool {
	s, ok := parseSelect(body)
	if !ok {
		return false
	}
	if p.cur == nil || p.cur.Victim != nil {
		p.close()
		p.open(l)
	}
	p.cur.Selected = s
	setConstraint(p.cur, messageConstraint(selectMessage(body)), ConstraintFromKillLine)
	p.cur.Lines = append(p.cur.Lines, l.raw)
	return true
}

// onReaped files the reaper line with the event that killed that pid.
func (p *parser) onReaped(l line, body string) bool {
	r, ok := parseReaped(body)
	if !ok {
		return false
	}
	for _, e := range p.recent() {
		if e.Victim != nil && e.Victim.PID == r.PID {
			e.Reaped = r
			e.Lines = append(e.Lines, l.raw)
			return true
		}
	}
	p.close()
	p.open(l)
	p.cur.Reaped = r
	p.cur.Victim, p.cur.VictimFrom = &Victim{PID: r.PID, Name: r.Name}, VictimFromReaper
	p.only = "only the oom_reaper line was found"
	p.close()
	return true
}

// recent returns the open event and the last few closed ones, newest first.
func (p *parser) recent() []*Event {
	var out []*Event
	if p.cur != nil {
		out = append(out, p.cur)
	}
	for i := len(p.events) - 1; i >= 0 && i >= len(p.events)-4; i-- {
		out = append(out, &p.events[i])
	}
	return out
}
