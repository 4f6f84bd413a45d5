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
}

// sameReportGap is how far apart two copies of one report may be stamped
// (dmesg computes wall times from the boot time; journald records them).
const sameReportGap = 2 * time.Second

// parseKernel reads every kernel log and merges the copies of one report
// (journal, dmesg and kern.log usually all hold it). It returns the kills in
// time order and the number of reports found per source.
func parseKernel(logs []Log, def *time.Location) ([]kill, map[int]int) {
	var kills []kill
	counts := map[int]int{}
	for i, l := range logs {
		if l.Kind != KindKernel || l.State != StateRead {
			continue
		}
		events := parseKernelLog(l, def)
		counts[i] = len(events)
		for _, e := range events {
			kills = mergeKill(kills, e, l.Source)
		}
	}
	sort.SliceStable(kills, func(i, j int) bool { return before(kills[i].Time, kills[j].Time) })
	return kills, counts
}

// parseKernelLog parses one source with its clocks.
func parseKernelLog(l Log, def *time.Location) []oomlog.Event {
	o := oomlog.Options{Location: l.location(def), Year: l.Year}
	events, _ := o.Parse(bytes.NewReader(l.Text)) // a too-long line ends the parse; what was found is kept
	if !l.BootTime.IsZero() {
		oomlog.SetBootTime(events, l.BootTime)
	}
	return events
}

// mergeKill adds e, or merges it into the copy of the same report.
func mergeKill(kills []kill, e oomlog.Event, source string) []kill {
	for i := range kills {
		k := &kills[i]
		if !sameReport(k.Event, e) {
			continue
		}
		if richer(e, k.Event) {
			k.Event = e
		}
		if !slices.Contains(k.Sources, source) {
			k.Sources = append(k.Sources, source)
		}
		return kills
	}
	return append(kills, kill{Event: e, Sources: []string{source}})
}

// sameReport: same victim, stamped within sameReportGap (or, without wall
// times on both, the same victim numbers).
func sameReport(a, b oomlog.Event) bool {
	if a.Victim == nil || b.Victim == nil || a.Victim.PID != b.Victim.PID || a.Victim.Name != b.Victim.Name {
		return false
	}
	if !a.Time.Wall.IsZero() && !b.Time.Wall.IsZero() {
		return absDur(a.Time.Wall.Sub(b.Time.Wall)) <= sameReportGap
	}
	return a.Victim.AnonRSSBytes == b.Victim.AnonRSSBytes && a.Victim.TotalVMBytes == b.Victim.TotalVMBytes
}

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

// before orders stamps: wall times first, in order; others keep log order.
func before(a, b oomlog.Stamp) bool {
	switch {
	case a.Wall.IsZero():
		return false
	case b.Wall.IsZero():
		return true
	}
	return a.Wall.Before(b.Wall)
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
