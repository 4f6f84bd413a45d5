package postmortem

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/dbmem/dbmem/internal/unitlog"
)

// Service is what the service manager logged about one unit around a kill:
// the messages in order, and what became of the service.
type Service struct {
	Unit   string `json:"unit"`
	Host   string `json:"host,omitempty"`
	Source string `json:"source"`
	// Time is the first message's; TimeRaw as printed (a syslog stamp
	// without a year has no Time).
	Time    *time.Time     `json:"time"`
	TimeRaw string         `json:"time_raw"`
	Events  []ServiceEvent `json:"events"`
	// Result is "Failed with result 'X'"; MainExit "killed 9/KILL".
	Result   string `json:"result,omitempty"`
	MainExit string `json:"main_exit,omitempty"`
	// RestartCounter is systemd's count of automatic restarts of the unit.
	RestartCounter *int `json:"restart_counter"`
	// MemoryPeakBytes and SwapPeakBytes are the "Consumed" line's (systemd
	// 256+), as rounded as printed; null when not printed.
	MemoryPeakBytes *uint64 `json:"memory_peak_bytes"`
	SwapPeakBytes   *uint64 `json:"swap_peak_bytes"`
	// KilledBy: "kernel OOM killer", "systemd-oomd", "systemd (stop
	// timeout)", "" when the messages do not say.
	KilledBy string `json:"killed_by,omitempty"`
	// Fate: FateKeptRunning, FateStopped or FateRestarted.
	Fate string `json:"fate"`
	// StartedAt is when systemd started the unit again; Down from the
	// first message to it. Null when not in the log.
	StartedAt *time.Time     `json:"started_at"`
	Down      *time.Duration `json:"down_ns"`
	// TiedEvent is the 1-based index of the kernel kill (Report.Events)
	// this follows, TiedBy how it was tied ("cgroup": the kill line's
	// task_memcg is the unit's; "time": a guess); TiedKiller the 1-based
	// index in Report.Killers of the oomd kill.
	TiedEvent  *int     `json:"tied_event,omitempty"`
	TiedBy     string   `json:"tied_by,omitempty"`
	TiedKiller *int     `json:"tied_killer,omitempty"`
	Notes      []string `json:"notes,omitempty"`
	thisHost   bool
	order      unitlog.Stamp
}

// ServiceEvent is one message about the unit.
type ServiceEvent struct {
	Kind    string     `json:"kind"`
	At      *time.Time `json:"at"`
	TimeRaw string     `json:"time_raw"`
	Line    string     `json:"line"`
}

// Fates of a service after a kill.
const (
	FateKeptRunning = "kept running"
	FateStopped     = "stopped"
	FateRestarted   = "restarted"
)

// unitResult is what the service-manager logs hold.
type unitResult struct {
	services []Service
	killers  []Killer
	counts   map[int][2]int // services and killer events per source
}

// parseUnits reads every kernel and service log for unit messages and
// other killers.
func parseUnits(logs []Log, def *time.Location) unitResult {
	res := unitResult{counts: map[int][2]int{}}
	for i, l := range logs {
		if l.State != StateRead || (l.Kind != KindKernel && l.Kind != KindService) {
			continue
		}
		o := unitlog.Options{Location: l.location(def), Year: unitYear(l)}
		if loc, ok := journalHeaderZone(l.Text); ok && l.Zone == "" {
			o.Location = loc
		}
		ul, _ := o.Parse(bytes.NewReader(l.Text)) // reading from memory does not fail
		svcs := services(ul.Units, l)
		ks := killers(ul.Killers, l)
		res.services = append(res.services, svcs...)
		res.killers = append(res.killers, ks...)
		res.counts[i] = [2]int{len(svcs), len(ks)}
	}
	return res
}

// unitYear is the year of a log's syslog stamps: a dated line's, else for
// this host's own files their modification time's; 0 when unknown.
func unitYear(l Log) int {
	if y := datedYear(l.Text); y != 0 {
		return y
	}
	if !l.Given && !l.ModTime.IsZero() {
		return syslogYear(l.Text, l.ModTime)
	}
	return 0
}

// incidentKinds open or belong to an incident; started/stopped lines only
// date a restart.
var incidentKinds = map[string]bool{unitlog.UnitOOMKill: true, unitlog.UnitOomdKill: true, unitlog.UnitMainExited: true,
	unitlog.UnitFailed: true, unitlog.UnitKilling: true, unitlog.UnitRestartScheduled: true, unitlog.UnitConsumed: true,
	unitlog.UnitDeactivated: true}

// incidentGap ends an incident: the unit's next message is another story.
const incidentGap = 10 * time.Minute

// services groups a log's unit messages into incidents, one per unit and
// stretch of messages, and says what became of each.
func services(us []unitlog.UnitEvent, l Log) []Service {
	var out []Service
	open := map[string]int{} // unit -> index in out
	for i, u := range us {
		if !incidentKinds[u.Kind] || u.Unit == "" {
			continue
		}
		j, ok := open[u.Host+" "+u.Unit]
		if !ok || newIncident(out[j], u) {
			out = append(out, Service{Unit: u.Unit, Host: u.Host, Source: l.Source, TimeRaw: u.Stamp.Raw,
				Time: wallOf(u.Stamp), thisHost: !l.Given, order: u.Stamp})
			j = len(out) - 1
			open[u.Host+" "+u.Unit] = j
		}
		addEvent(&out[j], u)
		if u.Kind == unitlog.UnitRestartScheduled {
			restarted(&out[j], us[i+1:])
		}
	}
	for i := range out {
		fate(&out[i])
	}
	return dropQuiet(out)
}

// newIncident: a kill after the unit had stopped, or a long silence.
func newIncident(s Service, u unitlog.UnitEvent) bool {
	last := s.Events[len(s.Events)-1]
	if d, ok := between(s.order, u.Stamp); ok && d > incidentGap {
		return true
	}
	killed := u.Kind == unitlog.UnitOOMKill || u.Kind == unitlog.UnitOomdKill
	return killed && (last.Kind == unitlog.UnitFailed || last.Kind == unitlog.UnitConsumed || last.Kind == unitlog.UnitDeactivated ||
		last.Kind == unitlog.UnitRestartScheduled)
}

func addEvent(s *Service, u unitlog.UnitEvent) {
	s.Events = append(s.Events, ServiceEvent{Kind: u.Kind, At: wallOf(u.Stamp), TimeRaw: u.Stamp.Raw, Line: u.Line})
	switch u.Kind {
	case unitlog.UnitFailed:
		s.Result = u.Result
	case unitlog.UnitMainExited:
		s.MainExit = u.MainCode + " " + u.MainStatus
	case unitlog.UnitRestartScheduled:
		s.RestartCounter = u.RestartCounter
	case unitlog.UnitConsumed:
		s.MemoryPeakBytes, s.SwapPeakBytes = u.MemoryPeakBytes, u.SwapPeakBytes
	case unitlog.UnitOOMKill:
		s.KilledBy = "kernel OOM killer"
	case unitlog.UnitOomdKill:
		s.KilledBy = "systemd-oomd"
	case unitlog.UnitKilling:
		s.KilledBy = cmp.Or(s.KilledBy, "systemd (stop timeout)")
	}
}

// restarted finds the "Started" line of the restarted unit: the journal
// names the unit, syslog text only its description, so the first
// "Started" after the restart job within incidentGap is taken.
func restarted(s *Service, rest []unitlog.UnitEvent) {
	for _, u := range rest {
		if u.Kind != unitlog.UnitStarted || (u.Unit != "" && u.Unit != s.Unit) {
			continue
		}
		if d, ok := between(s.order, u.Stamp); ok && d > incidentGap {
			return
		}
		s.StartedAt = wallOf(u.Stamp)
		if d, ok := between(s.order, u.Stamp); ok {
			s.Down = &d
		}
		return
	}
}

// fate says what became of the service.
func fate(s *Service) {
	s.Fate = FateKeptRunning
	for _, e := range s.Events {
		switch e.Kind {
		case unitlog.UnitRestartScheduled:
			s.Fate = FateRestarted
			return
		case unitlog.UnitFailed, unitlog.UnitConsumed, unitlog.UnitDeactivated:
			s.Fate = FateStopped
		}
	}
}

// dropQuiet drops incidents that are only a clean stop.
func dropQuiet(ss []Service) []Service {
	var out []Service
	for _, s := range ss {
		if s.KilledBy != "" || s.Result != "" || s.Fate == FateRestarted || s.MainExit != "" && s.MainExit != "exited 0/SUCCESS" {
			out = append(out, s)
		}
	}
	return out
}

// between is b - a when both stamps can be compared (wall times, the same
// log's year-less dates, or times of day within a day), ok false else.
func between(a, b unitlog.Stamp) (time.Duration, bool) {
	switch {
	case !a.Order.IsZero() && !b.Order.IsZero():
		return b.Order.Sub(a.Order), true
	case a.DaySeconds >= 0 && b.DaySeconds >= 0:
		d := (b.DaySeconds - a.DaySeconds + 86400) % 86400
		if d > 43200 {
			d -= 86400
		}
		return time.Duration(d) * time.Second, true
	}
	return 0, false
}

func wallOf(s unitlog.Stamp) *time.Time {
	if s.Wall.IsZero() {
		return nil
	}
	t := s.Wall
	return &t
}

// headerZoneRe reads the offset journalctl prints in its header: "-- Logs
// begin at Thu 2019-04-11 23:51:07 +0430, end at ...".
var headerZoneRe = regexp.MustCompile(`(?m)^-- (?:Logs begin|Journal begins) at \w{3} \d{4}-\d\d-\d\d \d\d:\d\d:\d\d ([+-])(\d\d)(\d\d)\b`)

// journalHeaderZone is the zone of a journal's short stamps, from the
// offset of its header line, when the log has one.
func journalHeaderZone(text []byte) (*time.Location, bool) {
	m := headerZoneRe.FindSubmatch(text[:min(len(text), 64<<10)])
	if m == nil {
		return nil, false
	}
	h, _ := strconv.Atoi(string(m[2]))
	mi, _ := strconv.Atoi(string(m[3]))
	off := h*3600 + mi*60
	if string(m[1]) == "-" {
		off = -off
	}
	return time.FixedZone(fmt.Sprintf("UTC%s%s:%s", m[1], m[2], m[3]), off), true
}
