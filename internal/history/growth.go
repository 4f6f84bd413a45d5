package history

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/growth"
	"github.com/dbmem/dbmem/internal/xray"
)

// Growing is a role or a backend whose recorded private cost grows
// steadily, with when each limit would be reached at that rate.
type Growing struct {
	// Kind is "backend" or "role"; Instance the instance's labels.
	Kind     string          `json:"kind"`
	Instance string          `json:"instance"`
	PID      string          `json:"pid,omitempty"`
	Role     string          `json:"role"`
	User     string          `json:"user,omitempty"`
	Database string          `json:"database,omitempty"`
	Trend    growth.Trend    `json:"trend"`
	Forecast growth.Forecast `json:"forecast"`
	// Cause says what grew between the backend's first and last X-ray
	// in the range, when it was X-rayed twice.
	Cause string `json:"cause,omitempty"`
}

// Growth finds the roles and backends that grow steadily over the window
// that ends at the last point of each series (growth.Fit), and forecasts
// against the limits as last recorded.
func (h *History) Growth(o growth.Options) []Growing {
	var out []Growing
	for _, s := range h.Series {
		kind := map[string]string{"role_private_estimate_bytes": "role", "backend_private_estimate_bytes": "backend"}[s.Name]
		if kind == "" {
			continue
		}
		tr := growth.Fit(timePoints(s.Points), o)
		if !tr.Sustained {
			continue
		}
		inst, extra := splitExtra(s.Labels)
		g := Growing{Kind: kind, Instance: inst, PID: extraValue(extra, "pid"), Role: extraValue(extra, "role"),
			User: extraValue(extra, "user"), Database: extraValue(extra, "database"), Trend: tr}
		g.Forecast = growth.ForecastAt(tr.Rate, tr.From, tr.To, tr.To, h.limits(inst))
		if kind == "backend" {
			g.Cause = h.cause(inst, g.PID)
		}
		out = append(out, g)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind == "backend"
		}
		return out[i].Trend.Rate > out[j].Trend.Rate
	})
	return out
}

func timePoints(ps []TimePoint) []growth.Point {
	out := make([]growth.Point, len(ps))
	for i, p := range ps {
		out[i] = growth.Point{At: p.At, Bytes: p.Value}
	}
	return out
}

// last is a series' last value; ok is false when it was not recorded.
func (h *History) last(name, labels string) (float64, bool) {
	for _, s := range h.Series {
		if s.Name == name && s.Labels == labels && len(s.Points) > 0 {
			return s.Points[len(s.Points)-1].Value, true
		}
	}
	return 0, false
}

// limits are the host's and the instance's, as last recorded.
func (h *History) limits(inst string) []growth.Limit {
	var out []growth.Limit
	if v, ok := h.last("mem_available_bytes", ""); ok {
		out = append(out, growth.Limit{Name: "MemAvailable", HeadroomBytes: v})
	}
	lim, ok1 := h.last("cgroup_limit_bytes", inst)
	use, ok2 := h.last("cgroup_usage_bytes", inst)
	if ok1 && ok2 {
		out = append(out, growth.Limit{Name: "the cgroup limit", HeadroomBytes: lim - use})
	}
	mode, ok := h.last("overcommit_memory", "")
	cl, ok1 := h.last("commit_limit_bytes", "")
	ca, ok2 := h.last("committed_as_bytes", "")
	if ok && mode == 2 && ok1 && ok2 {
		out = append(out, growth.Limit{Name: "CommitLimit", HeadroomBytes: cl - ca, Note: "vm.overcommit_memory=2"})
	}
	return out
}

// cause compares the first and the last X-ray of a backend in the range,
// group by group.
func (h *History) cause(inst, pid string) string {
	prefix := inst + ExtraSep + "pid=" + pid + " group="
	var best xray.Group
	var grew, top float64
	var from, to time.Time
	for _, s := range h.Series {
		if s.Name != "xray_part_bytes" || !strings.HasPrefix(s.Labels, prefix) || len(s.Points) < 2 {
			continue
		}
		first, last := s.Points[0], s.Points[len(s.Points)-1]
		d := last.Value - first.Value
		grew += max(d, 0)
		if d > top {
			top, best, from, to = d, xray.Group(strings.TrimPrefix(s.Labels, prefix)), first.At, last.At
		}
	}
	if top <= 0 {
		return ""
	}
	return fmt.Sprintf("%s: between the X-rays of %s and %s, %s grew by %s of %s", xray.Verdict(best), from.Format("15:04:05"),
		to.Format("15:04:05"), best.Title(), Format(top, UnitBytes), Format(grew, UnitBytes))
}

// GrowingText is one growing role or backend for people.
func GrowingText(g Growing) string {
	who := "role " + g.Role
	if g.Kind == "backend" {
		who = fmt.Sprintf("pid %s %s %s@%s", g.PID, g.Role, g.User, g.Database)
	}
	s := fmt.Sprintf("%s  %s at the end, %s over %s (R² %.2f)", who, Format(g.Trend.Last, UnitBytes), growth.Rate(g.Trend.Rate),
		g.Trend.Span().Round(time.Second), g.Trend.R2)
	s += ": " + forecastText(g.Forecast)
	if g.Cause != "" {
		s += "; " + g.Cause
	} else if g.Kind == "backend" {
		s += "; cause unknown (not X-rayed twice: watch --xray-growing)"
	}
	return s
}

func forecastText(f growth.Forecast) string {
	if len(f.Reaches) == 0 {
		return "no limit recorded to reach"
	}
	var parts []string
	for _, r := range f.Reaches {
		parts = append(parts, fmt.Sprintf("%s (%s left) in %s", r.Limit.Name, Format(max(r.Limit.HeadroomBytes, 0), UnitBytes), growth.In(r.In)))
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" at the rate of %s .. %s UTC", f.From.UTC().Format("01-02 15:04"), f.To.UTC().Format("01-02 15:04"))
}
