package history

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/texttable"
	"github.com/dbmem/dbmem/internal/units"
)

// TextOptions shape the summary.
type TextOptions struct {
	// Width is the sparkline's width in characters (default 40).
	Width int
}

// Text writes the summary: the range, what the ticks cost, every series
// with min/mean/max/last and a sparkline, and the findings seen.
func Text(w io.Writer, h *History, o TextOptions) error {
	if o.Width <= 0 {
		o.Width = 40
	}
	var b strings.Builder
	fmt.Fprintf(&b, "dbmem history %s\n", h.Path)
	if h.Samples == 0 {
		b.WriteString("  no samples in this range\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "  %s .. %s (%s), %d samples\n", h.From.Format("2006-01-02 15:04:05"),
		h.To.Format("2006-01-02 15:04:05 MST"), h.To.Sub(h.From).Round(time.Second), h.Samples)
	for _, c := range h.Costs {
		fmt.Fprintf(&b, "  %-8s ticks %6d  CPU avg %s, max %s; wall avg %s\n", c.Mode, c.Ticks, dur(c.AvgCPU), dur(c.MaxCPU), dur(c.AvgWall))
	}
	writeSeries(&b, h, o.Width)
	writeGrowth(&b, h)
	writeFindings(&b, h)
	_, err := io.WriteString(w, b.String())
	return err
}

func dur(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

func writeSeries(b *strings.Builder, h *History, width int) {
	group := "\x00"
	var t *texttable.Table
	flush := func() {
		if t != nil {
			b.WriteString(t.Render("  "))
		}
	}
	for _, s := range h.Series {
		if strings.Contains(s.Labels, ExtraSep) || s.Name == "overcommit_memory" {
			continue // roles, backends and X-rays: under GROWTH
		}
		engine, g := InstanceOf(s.Labels)
		key := ""
		if g {
			key = s.Labels
		}
		if key != group {
			flush()
			group = key
			head := "\nHOST"
			if g {
				head = "\n" + strings.ToUpper(engine) + " " + inert.Text(instancePart(key))
			}
			b.WriteString(head + "\n")
			t = texttable.New("SERIES", ">MIN", ">MEAN", ">MAX", ">LAST", "TREND (oldest .. newest)")
		}
		st := StatsOf(s.Points)
		name := Title(s)
		if !g && s.Labels != "" {
			name += " (" + LabelText(s.Labels) + ")"
		}
		t.Add(name, Format(st.Min, s.Unit), Format(st.Mean, s.Unit), Format(st.Max, s.Unit),
			Format(st.Last, s.Unit), Sparkline(s.Points, width))
	}
	flush()
}

// Format renders a value in its unit.
func Format(v float64, unit string) string {
	switch unit {
	case UnitBytes:
		if v < 0 || math.IsNaN(v) {
			return "-"
		}
		return units.Short(uint64(math.Round(v)))
	case UnitPagesPerSec:
		return fmt.Sprintf("%.1f", v)
	}
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func writeGrowth(b *strings.Builder, h *History) {
	if h.GrowthWindow == 0 {
		return
	}
	if len(h.Growing) == 0 {
		fmt.Fprintf(b, "\nGROWTH  no role or backend grew steadily over the last %s of its series\n", h.GrowthWindow)
		return
	}
	fmt.Fprintf(b, "\nGROWTH  steady growth of private cost (RssAnon + VmPTE + VmSwap) over the last %s of each series, and when it reaches a limit at that rate\n", h.GrowthWindow)
	inst := ""
	for _, g := range h.Growing {
		if g.Instance != inst {
			inst = g.Instance
			fmt.Fprintf(b, "  POSTGRESQL %s\n", inert.Text(inst))
		}
		fmt.Fprintf(b, "    %s\n", inert.Text(GrowingText(g)))
	}
}

func writeFindings(b *strings.Builder, h *History) {
	if len(h.Findings) == 0 {
		b.WriteString("\nFINDINGS  none recorded in this range\n")
		return
	}
	fmt.Fprintf(b, "\nFINDINGS  %d\n", len(h.Findings))
	t := texttable.New("FIRST SEEN", "LAST SEEN", ">TICKS", "SEVERITY", "ID", "SUBJECT", "TITLE")
	for _, f := range h.Findings {
		t.Add(f.First.Format("01-02 15:04:05"), f.Last.Format("01-02 15:04:05"), fmt.Sprint(f.Ticks),
			f.Severity, f.ID, f.Subject, f.Title)
	}
	b.WriteString(t.Render("  "))
}
