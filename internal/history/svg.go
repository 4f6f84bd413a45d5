package history

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/chart"
)

// Chart is one chart: series of one unit over the same time range.
type Chart struct {
	Title  string
	Unit   string
	Series []Series
	Names  []string // legend entries, one per series
	// Instance is the instance's labels for an instance's chart ("" for
	// the host's): it decides which findings are marked on it.
	Instance string
}

const (
	svgW, svgH = 760, 260
	// maxPointsPerLine keeps a line at about one point per pixel.
	maxPointsPerLine = 680
)

// palette is Okabe and Ito's colour-blind-safe set (without its yellow,
// too pale on white), in an order that keeps neighbours apart for every
// kind of colour blindness; dashes tell lines apart in grey print too.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000", "#999999"}

// dashes are the lines' patterns, one per pass through the palette.
var dashes = []string{"", "6 3", "2 2"}

func seriesDash(i int) string { return dashes[(i/len(palette))%len(dashes)] }

// SVG renders the chart as inline SVG (internal/chart): a time axis from
// from to to, y from 0 with the unit's steps and labels, one line per
// series (means over at most one point per pixel; a lone point is a dot),
// and each finding in marks shaded while it was seen.
func (c Chart) SVG(from, to time.Time, marks []chart.Mark) string {
	l := chart.Line{
		Title: c.Title, Width: svgW, Height: svgH, Marks: marks,
		X: chart.Axis{Title: "time (UTC)", Time: true, Min: unixSeconds(from), Max: unixSeconds(to)},
		Y: chart.Axis{Title: c.Unit, Binary: c.Unit == UnitBytes, Integer: c.Unit == UnitCount,
			Format: func(v float64) string { return Format(v, c.Unit) }},
	}
	for i, s := range c.Series {
		ps := s.Points
		if len(ps) > maxPointsPerLine {
			ps = downsample(ps, maxPointsPerLine)
		}
		cs := chart.Series{Name: c.Names[i], Color: palette[i%len(palette)], Dash: seriesDash(i)}
		for _, p := range ps {
			cs.Points = append(cs.Points, chart.Point{X: unixSeconds(p.At), Y: p.Value})
		}
		l.Series = append(l.Series, cs)
	}
	return l.SVG()
}

func unixSeconds(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixNano()) / 1e9
}

// severityColors shade findings by severity.
var severityColors = map[string]string{"critical": "#D55E00", "warning": "#E69F00", "notice": "#56B4E9", "info": "#999999"}

// Marks returns the findings to mark on c, numbered as in the page's
// findings table (1 is h.Findings[0]): an instance's chart gets the
// findings about that instance, a host chart the others.
func Marks(c Chart, fs []FindingSpan) []chart.Mark {
	var out []chart.Mark
	for i, f := range fs {
		if about(f, c.Instance) {
			color := severityColors[f.Severity]
			color = cmp.Or(color, severityColors["info"])
			out = append(out, chart.Mark{From: unixSeconds(f.First), To: unixSeconds(f.Last), Color: color,
				Label: fmt.Sprint(i + 1), Title: fmt.Sprintf("%d. %s %s: %s: %s", i+1, strings.ToUpper(f.Severity), f.ID, f.Subject, f.Title)})
		}
	}
	return out
}

// about reports whether a finding concerns the instance of these labels
// ("port=5432 data_dir=/var/lib/..."), or, for "", no instance at all.
func about(f FindingSpan, instance string) bool {
	if instance == "" {
		return !strings.Contains(f.Subject, "(/") && !strings.Contains(f.Subject, " :")
	}
	port, dir, _ := strings.Cut(strings.TrimPrefix(instancePart(instance), "port="), " data_dir=")
	if dir != "" {
		return strings.Contains(f.Subject, "("+dir+")")
	}
	return strings.Contains(f.Subject, ":"+port+" ") || strings.HasSuffix(f.Subject, ":"+port)
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
