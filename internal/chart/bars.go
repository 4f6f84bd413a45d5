package chart

import (
	"fmt"
	"math"
	"strings"
)

// Bar is one bar: its value in chart units and the text printed by it.
type Bar struct {
	Label, Color, Value string
	V                   float64
}

// HBar draws horizontal bars on one scale, titled, with the unit after the
// scale; bars beyond limit are cut at the edge, marked with a break, and
// keep their printed value.
func HBar(title, unit string, bars []Bar, limit float64) string {
	const w, left, right, rowH = 560.0, 230.0, 90.0, 24.0
	h := 40 + rowH*float64(len(bars)) + 30
	top, step := NiceMax(limit)
	f := frame{w: w, h: h, left: left, right: right, top: 30, bottom: 30, xmax: top, ymax: 1}
	var b strings.Builder
	open(&b, w, h, title)
	text(&b, 8, 16, "start", "title", title)
	for i, x := range bars {
		y := f.top + rowH*float64(i)
		wpx := f.px(math.Min(x.V, top)) - left
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, left, y+3, math.Max(wpx, 1), rowH-6, x.Color)
		if x.V > top {
			fmt.Fprintf(&b, `<path d="M%.1f %.1f l8 %.1f" stroke="#fff" stroke-width="3"/>`, left+wpx-14, y+3, rowH-6)
		}
		text(&b, left-8, y+rowH/2+4, "end", "tick", x.Label)
		text(&b, left+wpx+6, y+rowH/2+4, "start", "value", x.Value)
	}
	for v := 0.0; v <= top+step/2; v += step {
		text(&b, f.px(v), h-12, "middle", "tick", Num(v))
	}
	text(&b, w-right+14, h-12, "start", "label", unit)
	b.WriteString("</svg>")
	return b.String()
}

// VBar draws vertical bars, one per entry, with the value above each and
// the y axis titled.
func VBar(title, ytitle string, bars []Bar) string {
	f := frame{w: 560, h: 300, left: 72, right: 20, top: 36, bottom: 44}
	peak := 0.0
	for _, x := range bars {
		peak = math.Max(peak, x.V)
	}
	f.ymax, f.ystep = NiceMax(peak)
	var b strings.Builder
	open(&b, f.w, f.h, title)
	text(&b, f.left, 16, "start", "title", title)
	c := Line{Y: Axis{Title: ytitle}}
	for y := 0.0; y <= f.ymax*(1+1e-9); y += f.ystep {
		line(&b, f.left, f.py(y), f.w-f.right, f.py(y), "grid")
		text(&b, f.left-6, f.py(y)+4, "end", "tick", c.Y.label(y))
	}
	line(&b, f.left, f.h-f.bottom, f.w-f.right, f.h-f.bottom, "axis")
	fmt.Fprintf(&b, `<text transform="translate(14 %.1f) rotate(-90)" text-anchor="middle" class="label" font-size="12" fill="%s">%s</text>`,
		(f.top+f.h-f.bottom)/2, inkLabel, escape(ytitle))
	slot := (f.w - f.left - f.right) / math.Max(1, float64(len(bars)))
	for i, x := range bars {
		x0 := f.left + slot*float64(i) + slot*0.15
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, x0, f.py(x.V), slot*0.7, f.py(0)-f.py(x.V), x.Color)
		text(&b, x0+slot*0.35, f.py(x.V)-5, "middle", "value", x.Value)
		text(&b, x0+slot*0.35, f.h-f.bottom+16, "middle", "tick", x.Label)
	}
	b.WriteString("</svg>")
	return b.String()
}
