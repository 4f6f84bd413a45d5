package history

import (
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/growth"
)

// GrowthFindingID is the finding `dbmem check --history` makes of steady
// growth.
const GrowthFindingID = "memory.growth"

// GrowthFindings turns what Growth found into findings: critical when a
// limit would be reached within an hour, warning within a day, notice
// beyond. Each says the rate, the window and what grew, when known.
func GrowthFindings(gs []Growing, path string) []finding.Finding {
	var out []finding.Finding
	for _, g := range gs {
		r, ok := g.Forecast.Soonest()
		if !ok {
			continue
		}
		sev := finding.Notice
		switch {
		case r.In < time.Hour:
			sev = finding.Critical
		case r.In < 24*time.Hour:
			sev = finding.Warning
		}
		who, what := "role "+g.Role, "the memory of this role's processes together"
		if g.Kind == "backend" {
			who, what = fmt.Sprintf("backend %s (%s %s@%s)", g.PID, g.Role, g.User, g.Database), "the backend's memory"
		}
		out = append(out, finding.Finding{ID: GrowthFindingID, Severity: sev, Subject: "postgresql " + g.Instance + ": " + who,
			Title: fmt.Sprintf("private memory grows %s: %s reached in %s at that rate", growth.Rate(g.Trend.Rate), r.Limit.Name, growth.In(r.In)),
			Evidence: []finding.Evidence{
				{Name: "rate", Value: fmt.Sprintf("%s (R² %.2f)", growth.Rate(g.Trend.Rate), g.Trend.R2), Source: path},
				{Name: "window", Value: fmt.Sprintf("%s .. %s UTC", g.Trend.From.UTC().Format("2006-01-02 15:04"), g.Trend.To.UTC().Format("15:04")), Source: path},
				{Name: "private now", Value: Format(g.Trend.Last, UnitBytes), Source: path},
				{Name: r.Limit.Name + " left", Value: Format(max(r.Limit.HeadroomBytes, 0), UnitBytes), Source: path},
			},
			Why: what + " grew steadily over the window (a line explains the points): at that rate it reaches the limit, then the kernel OOM-kills or allocations fail",
			Fix: growthFix(g)})
	}
	return out
}

func growthFix(g Growing) string {
	if g.Cause != "" {
		return g.Cause + "; see docs/findings.md#memory-growth"
	}
	who := "the backend"
	if g.Kind == "role" {
		who = "its largest backends (dbmem watch: GROWTH, BACKENDS)"
	}
	return "X-ray " + who + " twice a few minutes apart (dbmem report --contexts-pid, or watch --xray-growing) to tell cache growth (recycle the connection) from a leak (an extension, malloc keeping freed memory) and from a running query (work_mem)"
}
