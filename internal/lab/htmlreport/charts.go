package htmlreport

import (
	"fmt"
	"html/template"
	"math"

	"github.com/dbmem/dbmem/internal/lab"
)

const mib = 1 << 20

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
	var ss []series
	for _, m := range r.Modes {
		base := float64(m.Stage("prewarmed").PageTablesBytes)
		own := series{name: string(m.HugePages) + ": backends' VmPTE", color: colorOf(m.HugePages), pts: []pt{{0, 0}}}
		host := series{name: string(m.HugePages) + ": host PageTables", color: colorOf(m.HugePages), dash: "2 3", pts: []pt{{0, 0}}}
		for _, st := range m.Steps {
			own.pts = append(own.pts, pt{float64(st.Connections), float64(st.ReadersPTEBytes) / mib})
			host.pts = append(host.pts, pt{float64(st.Connections), math.Max(0, float64(st.PageTablesBytes)-base) / mib})
		}
		ss = append(ss, own, host)
	}
	n := float64(r.Config.Connections)
	ss = append(ss, series{name: "N × table / 512", color: colorGrey, dash: "6 4",
		pts: []pt{{0, 0}, {n, n * float64(r.TableBytes) / 512 / mib}}})
	return lineChart("Page tables vs connections", "connections open", "MiB", ss)
}

// perConnChart: what one connection costs, by each way of counting.
func perConnChart(r *lab.Result) string {
	var bars []bar
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
			bars = append(bars, bar{label: x.what + ", " + mode, color: colorOf(m.HugePages), v: math.Max(v, 0), value: lab.SignedBytes(int64(c.PerConn(x.v)))})
		}
		limit = math.Max(limit, 2*c.PerConn(math.Max(float64(c.TruthBytes), float64(c.PredictedBytes)))/mib)
	}
	return hbarChart("Per-connection cost, huge_pages off and on", "MiB", bars, limit)
}

func tpsChart(b *lab.Bench) string {
	var bars []bar
	for _, r := range b.Runs {
		bars = append(bars, bar{label: fmt.Sprintf("%d %s", r.Index, r.HugePages), color: colorOf(r.HugePages), v: r.TPS, value: fmt.Sprintf("%.0f", r.TPS)})
	}
	return vbarChart(fmt.Sprintf("pgbench select-only TPS per run (%d clients, %.0f s)", b.Clients, b.Seconds), "TPS", bars)
}

func faultsChart(b *lab.Bench) string {
	var bars []bar
	for _, r := range b.Runs {
		bars = append(bars, bar{label: fmt.Sprintf("%d %s", r.Index, r.HugePages), color: colorOf(r.HugePages), v: r.FaultsPerSec / 1000, value: fmt.Sprintf("%.1fk", r.FaultsPerSec/1000)})
	}
	return vbarChart("Page faults per second of the pgbench backends", "thousand faults/s", bars)
}
