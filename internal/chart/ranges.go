package chart

import (
	"fmt"
	"math"
	"strings"
)

// Range is one row of a range chart: a distribution's minimum, median,
// 95th percentile and maximum in chart units, and the text printed by it.
type Range struct {
	Label, Value          string
	Min, Median, P95, Max float64
}

// Ranges draws distributions on one scale, one row each: a thin line from
// the minimum to the maximum, a box from the median to the 95th
// percentile and a bar at the median, labelled, with the unit after the
// scale. Shapes, not colours, tell the statistics apart; the legend says
// which is which.
func Ranges(title, unit, color string, rows []Range) string {
	const w, left, right, rowH = 680.0, 210.0, 210.0, 26.0
	h := 56 + rowH*float64(len(rows)) + 30
	peak := 0.0
	for _, r := range rows {
		peak = math.Max(peak, r.Max)
	}
	top, step := NiceMax(peak)
	f := frame{w: w, h: h, left: left, right: right, top: 48, bottom: 30, xmax: top, ymax: 1}
	var b strings.Builder
	open(&b, w, h, title)
	text(&b, 8, 16, "start", "title", title)
	rangeLegend(&b, color)
	for v := 0.0; v <= top+step/2; v += step {
		line(&b, f.px(v), f.top, f.px(v), h-f.bottom, "grid")
		text(&b, f.px(v), h-12, "middle", "tick", Num(v))
	}
	for i, r := range rows {
		y := f.top + rowH*float64(i) + rowH/2
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"/>`, f.px(r.Min), y, math.Max(f.px(r.Max), f.px(r.Min)+1), y, inkTick)
		x0, x1 := f.px(r.Median), f.px(r.P95)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="12" fill="%s"/>`, x0, y-6, math.Max(x1-x0, 2), color)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="3" height="18" fill="%s"/>`, x0-1.5, y-9, inkTitle)
		text(&b, left-8, y+4, "end", "tick", r.Label)
		text(&b, w-right+8, y+4, "start", "value", r.Value)
	}
	text(&b, w-right+14, h-12, "start", "label", unit)
	b.WriteString("</svg>")
	return b.String()
}

func rangeLegend(b *strings.Builder, color string) {
	fmt.Fprintf(b, `<line x1="8" y1="32" x2="30" y2="32" stroke="%s" stroke-width="1.5"/>`, inkTick)
	text(b, 34, 36, "start", "legend", "min to max")
	fmt.Fprintf(b, `<rect x="124" y="26" width="22" height="12" fill="%s"/>`, color)
	text(b, 150, 36, "start", "legend", "median to 95th percentile")
	fmt.Fprintf(b, `<rect x="318" y="23" width="3" height="18" fill="%s"/>`, inkTitle)
	text(b, 326, 36, "start", "legend", "median")
}
