package history

import (
	"fmt"
	"html"
	"math"
	"strings"
	"time"
)

// Chart is one chart: series of one unit over the same time range.
type Chart struct {
	Title  string
	Unit   string
	Series []Series
	Names  []string // legend entries, one per series
}

const (
	svgW, svgH             = 760, 240
	padL, padR, padT, padB = 64, 12, 12, 28
	plotW, plotH           = svgW - padL - padR, svgH - padT - padB
	maxPointsPerLine       = plotW
	yTicks                 = 4
	xTicks                 = 6
)

// palette starts with the colours of dbmem lab's charts (internal/lab/htmlreport).
var palette = []string{"#2a7ab9", "#d9541e", "#888888", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf"}

// SVG renders the chart as a self-contained inline SVG element: axes, grid,
// one polyline per series (means over at most one point per pixel), no
// scripts and no external references.
func (c Chart) SVG(from, to time.Time) string {
	peak := 0.0
	for _, s := range c.Series {
		peak = math.Max(peak, StatsOf(s.Points).Max)
	}
	top, step := niceAxis(peak, c.Unit)
	span := to.Sub(from)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		svgW, svgH, svgW, svgH, html.EscapeString(c.Title))
	writeGrid(&b, c.Unit, top, step, from, span)
	for i, s := range c.Series {
		writeLine(&b, s.Points, palette[i%len(palette)], top, from, span)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// niceAxis chooses the top of the y axis and the step between grid lines:
// powers of two for bytes (8G, 16G, 24G), 1-2-5 steps for other units, at
// most yTicks steps.
func niceAxis(peak float64, unit string) (top, step float64) {
	if peak <= 0 {
		peak = 1
		if unit == UnitBytes {
			peak = 1 << 20
		}
	}
	raw := peak / yTicks
	if unit == UnitBytes {
		step = math.Exp2(math.Ceil(math.Log2(raw)))
	} else {
		mag := math.Pow(10, math.Floor(math.Log10(raw)))
		for _, m := range []float64{1, 2, 5, 10} {
			if step = m * mag; step >= raw {
				break
			}
		}
	}
	if unit == UnitCount && step < 1 {
		step = 1 // no half connections
	}
	return step * math.Ceil(peak/step), step
}

func writeGrid(b *strings.Builder, unit string, top, step float64, from time.Time, span time.Duration) {
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#fff" stroke="#999999"/>`, padL, padT, plotW, plotH)
	for v := 0.0; v <= top*1.0001; v += step {
		y := yOf(v, top)
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eeeeee"/>`, padL, y, padL+plotW, y)
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end" font-size="11" fill="#555555">%s</text>`,
			padL-6, y+4, html.EscapeString(Format(v, unit)))
	}
	layout := "15:04"
	if span > 24*time.Hour {
		layout = "01-02 15:04"
	} else if span < 10*time.Minute {
		layout = "15:04:05"
	}
	for i := 0; i <= xTicks; i++ {
		t := from.Add(time.Duration(float64(span) * float64(i) / xTicks))
		x := xOf(t, from, span)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eeeeee"/>`, x, padT, x, padT+plotH)
		anchor := "middle"
		if i == 0 {
			anchor = "start"
		} else if i == xTicks {
			anchor = "end"
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="%s" font-size="11" fill="#555555">%s</text>`,
			x, svgH-8, anchor, t.Format(layout))
	}
}

func writeLine(b *strings.Builder, ps []TimePoint, color string, top float64, from time.Time, span time.Duration) {
	if len(ps) == 0 {
		return
	}
	pts := ps
	if len(ps) > maxPointsPerLine {
		pts = downsample(ps, maxPointsPerLine)
	}
	var coords []string
	for _, p := range pts {
		coords = append(coords, fmt.Sprintf("%.1f,%.1f", xOf(p.At, from, span), yOf(p.Value, top)))
	}
	if len(coords) == 1 {
		coords = append(coords, coords[0])
	}
	fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`, color, strings.Join(coords, " "))
}

// downsample keeps n points: the mean of each of n equal time spans, at
// the span's middle.
func downsample(ps []TimePoint, n int) []TimePoint {
	means := Buckets(ps, n)
	t0, span := ps[0].At, ps[len(ps)-1].At.Sub(ps[0].At)
	var out []TimePoint
	for i, m := range means {
		if !math.IsNaN(m) {
			at := t0.Add(time.Duration((float64(i) + 0.5) / float64(n) * float64(span)))
			out = append(out, TimePoint{at, m})
		}
	}
	return out
}

func xOf(t, from time.Time, span time.Duration) float64 {
	if span <= 0 {
		return padL + plotW/2
	}
	return padL + float64(plotW)*float64(t.Sub(from))/float64(span)
}

func yOf(v, top float64) float64 {
	return padT + float64(plotH)*(1-v/top)
}
