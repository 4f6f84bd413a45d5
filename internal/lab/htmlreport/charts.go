package htmlreport

import (
	"fmt"
	"html/template"
	"math"

	"github.com/dbmem/dbmem/internal/chart"
	"github.com/dbmem/dbmem/internal/lab"
)

const mib = 1 << 20

// Colours of the two settings, used everywhere.
const (
	colorOff  = "#d9541e"
	colorOn   = "#2a7ab9"
	colorGrey = "#888888"
)

func colorOf(m lab.Mode) string {
	if m == lab.ModeOn {
		return colorOn
	}
	return colorOff
}

// charts are the report's figures, as inline SVG. The markup is built from
// numbers and escaped labels only.
func charts(r *lab.Result) []template.HTML {
	var out []template.HTML
	if len(r.Modes) > 0 {
		out = append(out, template.HTML(pageTablesChart(r)), template.HTML(perConnChart(r)))
	}
	if r.Bench != nil && len(r.Bench.Runs) > 0 {
		out = append(out, template.HTML(tpsChart(r.Bench)), template.HTML(faultsChart(r.Bench)))
	}
	return out
}

// pageTablesChart: page tables against the connections open, per mode: the
// readers' own VmPTE (solid) and the rise of meminfo PageTables (dotted,
// moved by everything else on the host too), with the projection
// N x table / 512 for 4 KiB pages.
func pageTablesChart(r *lab.Result) string {
	var ss []chart.Series
	for _, m := range r.Modes {
		base := float64(m.Stage("prewarmed").PageTablesBytes)
		own := chart.Series{Name: string(m.HugePages) + ": backends' VmPTE", Color: colorOf(m.HugePages), Points: []chart.Point{{X: 0, Y: 0}}}
		host := chart.Series{Name: string(m.HugePages) + ": host PageTables", Color: colorOf(m.HugePages), Dash: "2 3", Points: []chart.Point{{X: 0, Y: 0}}}
		for _, st := range m.Steps {
			own.Points = append(own.Points, chart.Point{X: float64(st.Connections), Y: float64(st.ReadersPTEBytes) / mib})
			host.Points = append(host.Points, chart.Point{X: float64(st.Connections), Y: math.Max(0, float64(st.PageTablesBytes)-base) / mib})
		}
		ss = append(ss, own, host)
	}
	n := float64(r.Config.Connections)
	ss = append(ss, chart.Series{Name: "N × table / 512", Color: colorGrey, Dash: "6 4",
		Points: []chart.Point{{X: 0, Y: 0}, {X: n, Y: n * float64(r.TableBytes) / 512 / mib}}})
	return chart.Line{Title: "Page tables vs connections", Heading: true, Legend: true,
		X: chart.Axis{Title: "connections open", Integer: true}, Y: chart.Axis{Title: "MiB"}, Series: ss}.SVG()
}

// perConnChart: what one connection costs, by each way of counting.
func perConnChart(r *lab.Result) string {
	var bars []chart.Bar
	limit := 0.0
	for _, m := range r.Modes {
		c := m.Cost
		mode := string(m.HugePages)
		for _, x := range []struct {
			what string
			v    float64
		}{{"ground truth (MemAvailable)", float64(c.TruthBytes)}, {"dbmem: Pss_Anon + VmPTE", float64(c.PredictedBytes)},
			{"Pss", float64(c.PssBytes)}, {"RSS", float64(c.RSSBytes)}} {
			v := c.PerConn(x.v) / mib
			bars = append(bars, chart.Bar{Label: x.what + ", " + mode, Color: colorOf(m.HugePages), V: math.Max(v, 0), Value: lab.SignedBytes(int64(c.PerConn(x.v)))})
		}
		limit = math.Max(limit, 2*c.PerConn(math.Max(float64(c.TruthBytes), float64(c.PredictedBytes)))/mib)
	}
	return chart.HBar("Per-connection cost, huge_pages off and on", "MiB", bars, limit)
}

func tpsChart(b *lab.Bench) string {
	var bars []chart.Bar
	for _, r := range b.Runs {
		bars = append(bars, chart.Bar{Label: fmt.Sprintf("%d %s", r.Index, r.HugePages), Color: colorOf(r.HugePages), V: r.TPS, Value: fmt.Sprintf("%.0f", r.TPS)})
	}
	return chart.VBar(fmt.Sprintf("pgbench select-only TPS per run (%d clients, %.0f s)", b.Clients, b.Seconds), "TPS", bars)
}

func faultsChart(b *lab.Bench) string {
	var bars []chart.Bar
	for _, r := range b.Runs {
		bars = append(bars, chart.Bar{Label: fmt.Sprintf("%d %s", r.Index, r.HugePages), Color: colorOf(r.HugePages), V: r.FaultsPerSec / 1000, Value: fmt.Sprintf("%.1fk", r.FaultsPerSec/1000)})
	}
	return chart.VBar("Page faults per second of the pgbench backends", "thousand faults/s", bars)
}
