package chart

import (
	"fmt"
	"html"
	"strings"
)

// Colours of the text and the grid, as presentation attributes.
const (
	inkTitle = "#222222"
	inkTick  = "#555555"
	inkLabel = "#333333"
	inkGrid  = "#eeeeee"
	inkAxis  = "#999999"
)

func open(b *strings.Builder, w, h float64, title string) {
	fmt.Fprintf(b, `<svg class="chart" role="img" aria-label="%s" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f">`,
		html.EscapeString(title), w, h, w, h)
	fmt.Fprintf(b, `<title>%s</title>`, html.EscapeString(title))
}

// text writes escaped text; class is one of title, tick, label, legend
// and value, each with its own size and colour.
func text(b *strings.Builder, x, y float64, anchor, class, s string) {
	size, ink, weight := 11, inkTick, ""
	switch class {
	case "title":
		size, ink, weight = 14, inkTitle, ` font-weight="600"`
	case "label", "legend":
		size, ink = 12, inkLabel
	case "value":
		ink = inkTitle
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="%s" class="%s" font-size="%d" fill="%s"%s>%s</text>`,
		x, y, anchor, class, size, ink, weight, html.EscapeString(s))
}

func line(b *strings.Builder, x1, y1, x2, y2 float64, class string) {
	ink := inkGrid
	if class == "axis" {
		ink = inkAxis
	}
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="%s" stroke="%s"/>`, x1, y1, x2, y2, class, ink)
}

func escape(s string) string { return html.EscapeString(s) }
