package chart

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Point is a point in data units (a time axis takes Unix seconds).
type Point struct{ X, Y float64 }

// Series is one line.
type Series struct {
	Name   string
	Color  string
	Dash   string // SVG stroke-dasharray; "" draws a solid line
	Points []Point
}

// Mark is a span of x shaded on the plot, with a short label at its top
// and a longer title shown on hover: a finding while it was seen.
type Mark struct {
	From, To     float64
	Label, Title string
	Color        string
}

// Axis describes one axis. Y always starts at 0.
type Axis struct {
	Title string
	// Min and Max bound the axis; Max 0 takes it from the data (a number
	// axis then rounds it up to a round number).
	Min, Max float64
	// Time labels an x axis of Unix seconds with round times (UTC).
	Time bool
	// Binary steps in powers of two (bytes); Integer steps of at least 1.
	Binary, Integer bool
	// Format writes a tick label (nil: Num).
	Format func(float64) string
}

// Line is a line chart.
type Line struct {
	Title string
	// Heading draws Title above the plot (a page may have its own heading).
	Heading bool
	X, Y    Axis
	Series  []Series
	Marks   []Mark
	// Legend draws the series' names at the right.
	Legend        bool
	Width, Height float64
}

// dotsUpTo is how many points a solid series may have and still be drawn
// with a dot on each.
const dotsUpTo = 60

// SVG renders the chart.
func (c Line) SVG() string {
	f := c.frame()
	var b strings.Builder
	open(&b, f.w, f.h, c.Title)
	if c.Heading {
		text(&b, f.left, 16, "start", "title", c.Title)
	}
	c.grid(&b, f)
	c.marks(&b, f)
	for i, s := range c.Series {
		c.series(&b, f, s)
		if c.Legend {
			legend(&b, f.w-f.right+12, f.top+12+float64(i)*20, s.Color, s.Dash, s.Name)
		}
	}
	b.WriteString("</svg>")
	return b.String()
}

// frame maps data units to pixels inside the plot area.
type frame struct {
	w, h                     float64
	left, right, top, bottom float64
	xmin, xmax, ymax         float64
	ystep, xstep             float64
}

func (f frame) px(x float64) float64 {
	return f.left + (x-f.xmin)/(f.xmax-f.xmin)*(f.w-f.left-f.right)
}
func (f frame) py(y float64) float64 { return f.h - f.bottom - y/f.ymax*(f.h-f.top-f.bottom) }

func (c Line) frame() frame {
	f := frame{w: orDefault(c.Width, 560), h: orDefault(c.Height, 320), left: 72, right: 16, top: 12, bottom: 44}
	if c.Legend {
		f.right = 170
	}
	if c.Heading {
		f.top = 28
	}
	lo, hi, peak := math.Inf(1), math.Inf(-1), 0.0
	for _, s := range c.Series {
		for _, p := range s.Points {
			lo, hi, peak = math.Min(lo, p.X), math.Max(hi, p.X), math.Max(peak, p.Y)
		}
	}
	f.ymax, f.ystep = c.Y.scale(peak)
	if c.Y.Max > 0 {
		f.ymax = c.Y.Max
	}
	f.xmin, f.xmax = c.xRange(lo, hi, &f.xstep)
	return f
}

// xRange is the x axis' span: the given bounds or the data's; a time axis
// with one instant is widened by a minute around it, so that it shows.
func (c Line) xRange(lo, hi float64, step *float64) (float64, float64) {
	a := c.X
	if !c.X.Time {
		top := a.Max
		if top == 0 {
			top, *step = a.scale(math.Max(hi, 0))
		}
		return a.Min, math.Max(top, a.Min+1e-9)
	}
	if a.Max > a.Min {
		return a.Min, a.Max
	}
	if math.IsInf(lo, 0) {
		lo, hi = a.Min, a.Min
	}
	if hi-lo < 1 {
		return lo - 30, hi + 30
	}
	return lo, hi
}

func orDefault(v, d float64) float64 {
	if v > 0 {
		return v
	}
	return d
}

// grid draws the y grid with labels, the x ticks, the axis and both
// axis titles.
func (c Line) grid(b *strings.Builder, f frame) {
	for y := 0.0; y <= f.ymax*(1+1e-9); y += f.ystep {
		line(b, f.left, f.py(y), f.w-f.right, f.py(y), "grid")
		text(b, f.left-6, f.py(y)+4, "end", "tick", c.Y.label(y))
	}
	for _, t := range c.xTicks(f) {
		x := f.px(t.at)
		line(b, x, f.top, x, f.h-f.bottom, "grid")
		text(b, x, f.h-f.bottom+16, "middle", "tick", t.label)
	}
	line(b, f.left, f.h-f.bottom, f.w-f.right, f.h-f.bottom, "axis")
	line(b, f.left, f.top, f.left, f.h-f.bottom, "axis")
	text(b, (f.left+f.w-f.right)/2, f.h-6, "middle", "label", c.X.Title)
	fmt.Fprintf(b, `<text transform="translate(14 %.1f) rotate(-90)" text-anchor="middle" class="label" font-size="12" fill="%s">%s</text>`,
		(f.top+f.h-f.bottom)/2, inkLabel, html.EscapeString(c.Y.Title))
}

// xTicks are the labelled x positions: round times, or steps of the
// number axis.
func (c Line) xTicks(f frame) []tick {
	if c.X.Time {
		return timeTicks(f.xmin, f.xmax, 6)
	}
	if f.xstep <= 0 {
		_, f.xstep = NiceMax(f.xmax - f.xmin)
	}
	var out []tick
	for x := f.xmin; x <= f.xmax*(1+1e-9); x += f.xstep {
		out = append(out, tick{x, c.X.label(x)})
	}
	return out
}

func (c Line) marks(b *strings.Builder, f frame) {
	for _, m := range c.Marks {
		x0, x1 := f.px(math.Max(m.From, f.xmin)), f.px(math.Min(m.To, f.xmax))
		if x1 < f.left || x0 > f.w-f.right {
			continue
		}
		fmt.Fprintf(b, `<g class="mark"><title>%s</title>`, html.EscapeString(m.Title))
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.15"/>`,
			x0, f.top, math.Max(x1-x0, 2), f.h-f.top-f.bottom, m.Color)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"/>`, x0, f.top, x0, f.h-f.bottom, m.Color)
		if x0 > f.w-f.right-20 { // at the right edge: label to the left
			text(b, x0-3, f.top+12, "end", "value", m.Label)
		} else {
			text(b, x0+3, f.top+12, "start", "value", m.Label)
		}
		b.WriteString("</g>")
	}
}

// series draws one line; a series of one point, or a solid one of few
// points, gets a dot on each point, so that it is seen.
func (c Line) series(b *strings.Builder, f frame, s Series) {
	var d []string
	for _, p := range s.Points {
		d = append(d, fmt.Sprintf("%.1f,%.1f", f.px(p.X), f.py(p.Y)))
	}
	if len(d) >= 2 {
		dash, width := "", 2.0
		if s.Dash != "" {
			dash, width = fmt.Sprintf(` stroke-dasharray="%s"`, s.Dash), 1.5
		}
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="%.1f"%s/>`, strings.Join(d, " "), s.Color, width, dash)
	}
	if len(s.Points) == 1 || (s.Dash == "" && len(s.Points) <= dotsUpTo) {
		for _, p := range s.Points {
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, f.px(p.X), f.py(p.Y), s.Color)
		}
	}
}

func legend(b *strings.Builder, x, y float64, color, dash, name string) {
	if dash == "" {
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="14" height="10" fill="%s"/>`, x, y-9, color)
	} else {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2" stroke-dasharray="%s"/>`, x, y-4, x+14, y-4, color, dash)
	}
	text(b, x+19, y, "start", "legend", name)
}
