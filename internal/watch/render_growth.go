package watch

import (
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/growth"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/units"
)

// maxGrowthLines bounds the GROWTH section.
const maxGrowthLines = 8

// growthLines say which backends and roles grow steadily and when, at that
// rate, each limit would be reached.
func growthLines(f Frame) []line {
	if len(f.Growing) == 0 {
		return nil
	}
	out := []line{{"GROWTH  steady growth of private cost (RssAnon + VmPTE + VmSwap), and when it reaches a limit at that rate", sgrBold}}
	for i, g := range f.Growing {
		if i == maxGrowthLines {
			out = append(out, line{fmt.Sprintf("  ... %d more", len(f.Growing)-i), ""})
			break
		}
		color := ""
		if r, ok := g.Forecast.Soonest(); ok && r.In < 24*time.Hour {
			color = sgrYellow
		}
		out = append(out, line{"  " + GrowingText(g), color})
	}
	return out
}

// GrowingText is one growing backend or role for people.
func GrowingText(g Growing) string {
	who := fmt.Sprintf("role %s :%s", g.Role, units.OptInt(g.Port, units.UnknownCell))
	if g.Kind == "backend" {
		who = fmt.Sprintf("pid %d %s %s@%s :%s", g.PID, g.Role, g.User, g.Database, units.OptInt(g.Port, units.UnknownCell))
	}
	s := fmt.Sprintf("%s  %s now, %s over the last %s (R² %.2f)", inert.Text(who), units.Bytes(uint64(g.Trend.Last)), growth.Rate(g.Trend.Rate),
		g.Trend.Span().Round(time.Second), g.Trend.R2)
	s += ": " + ForecastText(g.Forecast)
	if g.Kind == "backend" {
		if g.Cause != "" {
			s += "; " + inert.Text(g.Cause)
		} else {
			s += "; cause unknown until X-rayed twice (x, or --xray-growing)"
		}
	}
	return s
}

// ForecastText says when each limit would be reached at the forecast's
// rate, naming the window it was measured over.
func ForecastText(f growth.Forecast) string {
	if len(f.Reaches) == 0 {
		return "no limit known to reach"
	}
	s := ""
	for i, r := range f.Reaches {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s (%s left) in %s", r.Limit.Name, units.Bytes(uint64(max(r.Limit.HeadroomBytes, 0))), growth.In(r.In))
	}
	return s + fmt.Sprintf(" at the rate of %s .. %s", f.From.Local().Format("15:04:05"), f.To.Local().Format("15:04:05"))
}
