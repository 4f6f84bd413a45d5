package chart

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestNiceMax(t *testing.T) {
	for _, tc := range []struct{ v, top, step float64 }{
		{25, 25, 5}, {100, 100, 20}, {62, 80, 20}, {0.3, 0.3, 0.1}, {7.2, 8, 2}, {1, 1, 0.2}, {101, 150, 50}, {0, 1, 0.2},
	} {
		top, step := NiceMax(tc.v)
		if math.Abs(top-tc.top) > 1e-9 || math.Abs(step-tc.step) > 1e-9 {
			t.Errorf("NiceMax(%v) = %v, %v; want %v, %v", tc.v, top, step, tc.top, tc.step)
		}
	}
}

func TestAxisScale(t *testing.T) {
	for _, tc := range []struct {
		peak      float64
		a         Axis
		top, step float64
	}{
		{24.7 * (1 << 30), Axis{Binary: true}, 32 << 30, 8 << 30},
		{0, Axis{Binary: true}, 1 << 20, 1 << 18},
		{630, Axis{Integer: true}, 800, 200},
		{1.05, Axis{}, 1.5, 0.5},
		{0, Axis{Integer: true}, 1, 1},
		{29, Axis{Integer: true}, 30, 10},
		{3, Axis{Integer: true}, 3, 1},
	} {
		top, step := tc.a.scale(tc.peak)
		if math.Abs(top-tc.top) > 1e-9*tc.top || math.Abs(step-tc.step) > 1e-9*tc.step {
			t.Errorf("scale(%v, %+v) = %v, %v; want %v, %v", tc.peak, tc.a, top, step, tc.top, tc.step)
		}
	}
}

// Whatever the span, time ticks are round, in range, at most six, and no
// two labels read the same (the history page repeated "14:05" before).
func TestTimeTicksAreDistinct(t *testing.T) {
	from := float64(time.Date(2026, 11, 24, 23, 58, 17, 0, time.UTC).Unix())
	for _, span := range []time.Duration{3 * time.Second, 40 * time.Second, 2 * time.Minute, 7 * time.Minute, 50 * time.Minute,
		5 * time.Hour, 26 * time.Hour, 9 * 24 * time.Hour, 60 * 24 * time.Hour} {
		ts := timeTicks(from, from+span.Seconds(), 6)
		if len(ts) == 0 || len(ts) > 7 {
			t.Errorf("span %s: %d ticks", span, len(ts))
		}
		seen := map[string]bool{}
		for _, tk := range ts {
			if seen[tk.label] {
				t.Errorf("span %s: label %q twice in %v", span, tk.label, ts)
			}
			seen[tk.label] = true
			if tk.at < from || tk.at > from+span.Seconds() {
				t.Errorf("span %s: tick %v out of range", span, tk)
			}
		}
	}
	if ts := timeTicks(from, from, 6); len(ts) != 1 || ts[0].label != "23:58:17" {
		t.Errorf("one instant: %v", ts)
	}
}

// A series of one point is drawn (a dot), the axes have titles, marks are
// shaded with escaped text, and nothing refers outside the SVG.
func TestLineSVG(t *testing.T) {
	at := float64(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC).Unix())
	c := Line{
		Title: "Memory <available>",
		X:     Axis{Title: "time (UTC)", Time: true},
		Y:     Axis{Title: "bytes", Binary: true, Format: func(v float64) string { return Num(v/(1<<30)) + " GiB" }},
		Series: []Series{{Name: "one", Color: "#2a7ab9", Points: []Point{{at, 3 << 30}}},
			{Name: "many", Color: "#d9541e", Dash: "2 3", Points: []Point{{at - 60, 1 << 30}, {at, 2 << 30}}}},
		Marks: []Mark{{From: at - 30, To: at, Label: "1", Title: "WARNING <x> & y", Color: "#d9541e"}},
	}
	svg := c.SVG()
	for _, want := range []string{`<circle cx=`, `>time (UTC)</text>`, `>bytes</text>`, `<title>WARNING &lt;x&gt; &amp; y</title>`,
		`aria-label="Memory &lt;available&gt;"`, `fill-opacity="0.15"`, `>3 GiB</text>`} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q:\n%s", want, svg)
		}
	}
	if n := strings.Count(svg, "<circle"); n != 1 {
		t.Errorf("%d dots, want 1 (the one-point series; the dashed one has none)", n)
	}
	for _, m := range regexp.MustCompile(`(?i)(https?:|href=|<script)[^"' >]*`).FindAllString(svg, -1) {
		if true {
			t.Errorf("external reference %q", m)
		}
	}
}

func TestOnePointAloneIsCentred(t *testing.T) {
	c := Line{X: Axis{Time: true}, Series: []Series{{Color: "#000", Points: []Point{{1e9, 5}}}}, Width: 500}
	m := regexp.MustCompile(`<circle cx="([0-9.]+)"`).FindStringSubmatch(c.SVG())
	f := c.frame()
	if m == nil {
		t.Fatal("no dot")
	}
	if x, _ := strconv.ParseFloat(m[1], 64); math.Abs(x-(f.left+f.w-f.right)/2) > 0.1 {
		t.Errorf("dot at x=%v, want the middle of the plot (%v)", x, (f.left+f.w-f.right)/2)
	}
}
