package postmortem

import (
	"bytes"
	"slices"
	"sort"
	"time"

	"github.com/dbmem/dbmem/internal/oomlog"
)

// kill is one OOM report, merged over the sources that hold a copy.
type kill struct {
	oomlog.Event
	Sources []string
	// YearFrom says where a syslog stamp's year came from; ThisHost and
	// Origin whether the report is this host's and why.
	YearFrom string
	ThisHost bool
	Origin   string
	// order sorts kills by time: the report's own, or for a report without
	// one the last time its source showed before it (log order).
	order time.Time
}

// sameReportGap is how far apart two copies of one report may be stamped
// (dmesg computes wall times from the boot time; journald records them).
const sameReportGap = 2 * time.Second

// kernelResult is what parseKernel found per source.
type kernelResult struct {
	kills     map[int]int // reports per source index
	longLines map[int]int
}

// parseKernel reads every kernel log and merges the copies of one report
// (journal, dmesg and kern.log usually all hold it). It returns the kills in
// time order and what was found per source.
func parseKernel(logs []Log, def *time.Location, me HostID) ([]kill, kernelResult) {
	var kills []kill
	res := kernelResult{kills: map[int]int{}, longLines: map[int]int{}}
	for i, l := range logs {
		if l.Kind != KindKernel || l.State != StateRead {
			continue
		}
		events, long, yearFrom := readKernelLog(l, def, me)
		res.kills[i], res.longLines[i] = len(events), long
		var last time.Time
		for _, e := range events {
			this, why := origin(l, e, me)
			if !e.Time.Wall.IsZero() {
				last = e.Time.Wall
			}
			k := kill{Event: e, Sources: []string{l.Source}, ThisHost: this, Origin: why, order: last}
			if syslogStampRe.MatchString(e.Time.Raw) {
				k.YearFrom = yearFrom
			}
			kills = mergeKill(kills, k)
		}
	}
	sort.SliceStable(kills, func(i, j int) bool { return kills[i].order.Before(kills[j].order) })
	return kills, res
}

// readKernelLog parses one source with its clocks, giving syslog stamps
// the year the log allows (yearFor).
func readKernelLog(l Log, def *time.Location, me HostID) ([]oomlog.Event, int, string) {
	events, st := parseKernelLog(l, def, 0)
	if year, from := yearFor(l, events, me); year != 0 && anyNeedsYear(events) {
		events, st = parseKernelLog(l, def, year)
		return events, st.LongLines, from
	}
	return events, st.LongLines, yearUnknown
}

// parseKernelLog parses one source with the given syslog year.
func parseKernelLog(l Log, def *time.Location, year int) ([]oomlog.Event, oomlog.Stats) {
	o := oomlog.Options{Location: l.location(def), Year: year}
	events, st, _ := o.ParseStats(bytes.NewReader(l.Text)) // reading from memory does not fail
	if !l.BootTime.IsZero() {
		oomlog.SetBootTime(events, l.BootTime)
	}
	return events, st
}

// mergeKill adds k, or merges it into the copy of the same report.
func mergeKill(kills []kill, k kill) []kill {
	for i := range kills {
		o := &kills[i]
		if !sameReport(o.Event, k.Event) {
			continue
		}
		if richer(k.Event, o.Event) {
			o.Event, o.YearFrom = k.Event, k.YearFrom
		}
		if k.ThisHost && !o.ThisHost {
			o.ThisHost, o.Origin = true, k.Origin
		}
		for _, s := range k.Sources {
			if !slices.Contains(o.Sources, s) {
				o.Sources = append(o.Sources, s)
			}
		}
		return kills
	}
	return append(kills, k)
}

// sameReport: same victim, stamped within sameReportGap (or, without wall
// times on both, the same victim numbers).
func sameReport(a, b oomlog.Event) bool {
	if a.Victim == nil || b.Victim == nil || a.Victim.PID != b.Victim.PID || a.Victim.Name != b.Victim.Name {
		return false
	}
	if !a.Time.Wall.IsZero() && !b.Time.Wall.IsZero() {
		return a.Time.Wall.Sub(b.Time.Wall).Abs() <= sameReportGap
	}
	return eqU64(a.Victim.AnonRSSBytes, b.Victim.AnonRSSBytes) && eqU64(a.Victim.TotalVMBytes, b.Victim.TotalVMBytes)
}

func eqU64(a, b *uint64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// richer prefers a complete report, then one with a zone, then more lines.
func richer(a, b oomlog.Event) bool {
	if a.Incomplete != b.Incomplete {
		return !a.Incomplete
	}
	if a.Time.ZoneKnown != b.Time.ZoneKnown {
		return a.Time.ZoneKnown
	}
	return len(a.Lines) > len(b.Lines)
}
