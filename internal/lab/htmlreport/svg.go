package htmlreport

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Colours of the two settings, used everywhere.
const (
	colorOff  = "#d9541e"
	colorOn   = "#2a7ab9"
	colorGrey = "#888888"
)

// pt is a point in data units.
type pt struct{ x, y float64 }

// series is one line of a line chart.
type series struct {
	name  string
	color string
	dash  string // SVG stroke-dasharray, "" for a solid line with dots
	pts   []pt
}

// frame maps data units to pixels inside the plot area.
type frame struct {
	w, h                     float64 // whole chart
	left, right, top, bottom float64 // margins
	xmax, ymax               float64
}

func (f frame) px(x float64) float64 { return f.left + x/f.xmax*(f.w-f.left-f.right) }
func (f frame) py(y float64) float64 { return f.h - f.bottom - y/f.ymax*(f.h-f.top-f.bottom) }

// niceMax rounds v up to a round number (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8
// times a power of ten) and returns it with a tick step that divides it
// into 3 to 5 parts.
func niceMax(v float64) (top, step float64) {
	if !(v > 0) || math.IsInf(v, 0) {
		return 1, 0.2
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, c := range []struct{ m, parts float64 }{{1, 5}, {1.5, 3}, {2, 4}, {2.5, 5}, {3, 3}, {4, 4}, {5, 5}, {6, 3}, {8, 4}, {10, 5}} {
		if c.m*p >= v*(1-1e-9) {
			return c.m * p, c.m * p / c.parts
		}
	}
	return 10 * p, 2 * p
}

// num renders a tick label without needless decimals.
func num(v float64) string {
	switch {
	case v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func svgOpen(b *strings.Builder, w, h float64, label string) {
	fmt.Fprintf(b, `<svg class="chart" role="img" aria-label="%s" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f">`,
		html.EscapeString(label), w, h, w, h)
}

func text(b *strings.Builder, x, y float64, anchor, class, s string) {
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="%s" class="%s">%s</text>`, x, y, anchor, class, html.EscapeString(s))
}

// axes draws the y grid with labels and the x axis with ticks.
func axes(b *strings.Builder, f frame, ystep, xstep float64, xlabel, ylabel string) {
	for y := 0.0; y <= f.ymax+ystep/2; y += ystep {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="grid"/>`, f.left, f.py(y), f.w-f.right, f.py(y))
		text(b, f.left-6, f.py(y)+4, "end", "tick", num(y))
	}
	if xstep > 0 {
		for x := 0.0; x <= f.xmax+xstep/2; x += xstep {
			text(b, f.px(x), f.h-f.bottom+16, "middle", "tick", num(x))
		}
	}
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="axis"/>`, f.left, f.h-f.bottom, f.w-f.right, f.h-f.bottom)
	text(b, (f.left+f.w-f.right)/2, f.h-6, "middle", "label", xlabel)
	fmt.Fprintf(b, `<text transform="translate(14 %.1f) rotate(-90)" text-anchor="middle" class="label">%s</text>`,
		(f.top+f.h-f.bottom)/2, html.EscapeString(ylabel))
}

// lineChart draws series against a common x and y range starting at 0.
func lineChart(title, xlabel, ylabel string, ss []series) string {
	f := frame{w: 560, h: 320, left: 64, right: 170, top: 28, bottom: 44}
	for _, s := range ss {
		for _, p := range s.pts {
			f.xmax, f.ymax = math.Max(f.xmax, p.x), math.Max(f.ymax, p.y)
		}
	}
	var ystep, xstep float64
	f.ymax, ystep = niceMax(f.ymax)
	f.xmax, xstep = niceMax(f.xmax)
	var b strings.Builder
	svgOpen(&b, f.w, f.h, title)
	text(&b, f.left, 16, "start", "title", title)
	axes(&b, f, ystep, xstep, xlabel, ylabel)
	for i, s := range ss {
		var d []string
		for _, p := range s.pts {
			d = append(d, fmt.Sprintf("%.1f,%.1f", f.px(p.x), f.py(p.y)))
		}
		dash, width := "", 2.5
		if s.dash != "" {
			dash, width = fmt.Sprintf(` stroke-dasharray="%s"`, s.dash), 1.5
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="%.1f"%s/>`, strings.Join(d, " "), s.color, width, dash)
		for _, p := range s.pts {
			if s.dash == "" {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, f.px(p.x), f.py(p.y), s.color)
			}
		}
		legend(&b, f.w-f.right+12, f.top+12+float64(i)*20, s.color, s.dash, s.name)
	}
	b.WriteString("</svg>")
	return b.String()
}

func legend(b *strings.Builder, x, y float64, color, dash, name string) {
	if dash == "" {
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="14" height="10" fill="%s"/>`, x, y-9, color)
	} else {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2" stroke-dasharray="%s"/>`, x, y-4, x+14, y-4, color, dash)
	}
	text(b, x+19, y, "start", "legend", name)
}

// bar is one bar: its value in chart units and the label printed by it.
type bar struct {
	label, color, value string
	v                   float64
}

// hbarChart draws horizontal bars on one scale; bars beyond limit are cut
// at the edge, marked with a break, and keep their printed value.
func hbarChart(title, unit string, bars []bar, limit float64) string {
	const w, left, right, rowH = 560.0, 230.0, 90.0, 24.0
	h := 40 + rowH*float64(len(bars)) + 30
	top, _ := niceMax(limit)
	f := frame{w: w, h: h, left: left, right: right, top: 30, bottom: 30, xmax: top, ymax: 1}
	var b strings.Builder
	svgOpen(&b, w, h, title)
	text(&b, 8, 16, "start", "title", title)
	for i, x := range bars {
		y := f.top + rowH*float64(i)
		wpx := f.px(math.Min(x.v, top)) - left
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, left, y+3, math.Max(wpx, 1), rowH-6, x.color)
		if x.v > top {
			fmt.Fprintf(&b, `<path d="M%.1f %.1f l8 %.1f" stroke="#fff" stroke-width="3"/>`, left+wpx-14, y+3, rowH-6)
		}
		text(&b, left-8, y+rowH/2+4, "end", "tick", x.label)
		text(&b, left+wpx+6, y+rowH/2+4, "start", "value", x.value)
	}
	_, step := niceMax(top)
	for v := 0.0; v <= top+step/2; v += step {
		text(&b, f.px(v), h-12, "middle", "tick", num(v))
	}
	text(&b, w-right+14, h-12, "start", "tick", unit)
	b.WriteString("</svg>")
	return b.String()
}

// vbarChart draws vertical bars, one per entry, with the value above each.
func vbarChart(title, ylabel string, bars []bar) string {
	f := frame{w: 560, h: 300, left: 64, right: 20, top: 36, bottom: 44}
	for _, x := range bars {
		f.ymax = math.Max(f.ymax, x.v)
	}
	var ystep float64
	f.ymax, ystep = niceMax(f.ymax)
	f.xmax = float64(len(bars))
	var b strings.Builder
	svgOpen(&b, f.w, f.h, title)
	text(&b, f.left, 16, "start", "title", title)
	axes(&b, f, ystep, 0, "", ylabel)
	slot := (f.w - f.left - f.right) / math.Max(1, float64(len(bars)))
	for i, x := range bars {
		x0 := f.left + slot*float64(i) + slot*0.15
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, x0, f.py(x.v), slot*0.7, f.py(0)-f.py(x.v), x.color)
		text(&b, x0+slot*0.35, f.py(x.v)-5, "middle", "value", x.value)
		text(&b, x0+slot*0.35, f.h-f.bottom+16, "middle", "tick", x.label)
	}
	b.WriteString("</svg>")
	return b.String()
}
