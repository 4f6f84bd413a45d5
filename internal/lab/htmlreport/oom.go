package htmlreport

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"time"

	"github.com/dbmem/dbmem/internal/chart"
	"github.com/dbmem/dbmem/internal/lab"
	"github.com/dbmem/dbmem/internal/units"
)

// oomPage is what the OOM template shows.
type oomPage struct {
	R          *lab.OOMResult
	Title      string
	Facts      [][2]string
	Rows       [][]string
	Charts     []template.HTML
	Runs       []*lab.OOMRun
	Protection *lab.Protection
	Emulated   bool
	Field      [][3]string
	Took       string
}

// WriteOOM renders an OOM result as one self-contained HTML page, in the
// lab's style: inline CSS and SVG, no script, no external resource.
func WriteOOM(w io.Writer, r *lab.OOMResult) error {
	p := oomPage{R: r, Title: "dbmem lab oom: one runaway query, without and with protection",
		Facts: oomFacts(r), Rows: lab.OOMRows(r), Charts: oomCharts(r), Protection: r.Protection,
		Emulated: r.Protection != nil && !r.Protection.Real, Field: oomField(r), Took: r.Elapsed.Round(time.Second).String()}
	for _, x := range []*lab.OOMRun{r.Unprotected, r.Protected} {
		if x != nil {
			p.Runs = append(p.Runs, x)
		}
	}
	return oomTmpl.Execute(w, p)
}

func oomFacts(r *lab.OOMResult) [][2]string {
	h, c := r.Host, r.Config
	f := [][2]string{
		{"Host", fmt.Sprintf("%s, kernel %s, %d CPUs, %s RAM", h.Hostname, h.KernelRelease, h.CPUs, units.Bytes(h.MemTotalBytes))},
		{"PostgreSQL", h.PGVersion},
		{"The machine", fmt.Sprintf("a memory cgroup of %s, no swap; shared_buffers %s", units.Bytes(c.LimitBytes), units.Bytes(c.SharedBuffersBytes))},
		{"Load", fmt.Sprintf("pgbench TPC-B-like, %d clients, scale %d; %d idle sessions", c.Clients, c.Scale, c.IdleSessions)},
		{"Runaway query", fmt.Sprintf("work_mem %s: %s", c.WorkMem, c.Query)},
		{"Run", fmt.Sprintf("%s, took %s", r.StartedAt.Format(time.RFC3339), r.Elapsed.Round(time.Second))},
	}
	if g := r.Cgroup; g != nil {
		f[2][1] += fmt.Sprintf(" (cgroup v%d %s)", g.Version(), g.Path)
	}
	return f
}

func oomField(r *lab.OOMResult) [][3]string {
	this := lab.FieldThisRun(r)
	var out [][3]string
	for i, f := range lab.FieldReportOOM {
		out = append(out, [3]string{f.What, f.Field, this[i]})
	}
	return out
}

// oomCharts: TPS and the cgroup's memory against the time since the
// query started, both runs on one chart each.
func oomCharts(r *lab.OOMResult) []template.HTML {
	var tps, mem []chart.Series
	for _, x := range []*lab.OOMRun{r.Unprotected, r.Protected} {
		if x != nil {
			tps = append(tps, tpsSeries(x, r.Config.BeforeSeconds))
			mem = append(mem, memSeries(x))
		}
	}
	lim, xmax := float64(r.Config.LimitBytes)/mib, 1.0
	for _, s := range mem {
		for _, p := range s.Points {
			xmax = math.Max(xmax, p.X)
		}
	}
	mem = append(mem, chart.Series{Name: "cgroup limit", Color: colorGrey, Dash: "6 4", Points: []chart.Point{{X: 0, Y: lim}, {X: xmax, Y: lim}}})
	return []template.HTML{
		template.HTML(chart.Line{Title: fmt.Sprintf("pgbench TPS; the query starts at %.0f s", r.Config.BeforeSeconds), Heading: true, Legend: true,
			X: chart.Axis{Title: "seconds"}, Y: chart.Axis{Title: "TPS"}, Series: tps}.SVG()),
		template.HTML(chart.Line{Title: "The cgroup's memory while the query runs", Heading: true, Legend: true,
			X: chart.Axis{Title: "seconds since the query started"}, Y: chart.Axis{Title: "MiB"}, Series: mem}.SVG()),
	}
}

func runColor(x *lab.OOMRun) string {
	if x.Name == "protected" {
		return colorOn
	}
	return colorOff
}

// tpsSeries places pgbench's reports so that the query starts at lead.
func tpsSeries(x *lab.OOMRun, lead float64) chart.Series {
	s := chart.Series{Name: x.Name, Color: runColor(x)}
	for _, p := range x.TPS.Samples {
		if t := p.At.Sub(x.QueryStart).Seconds() + lead; t >= 0 {
			s.Points = append(s.Points, chart.Point{X: t, Y: p.TPS})
		}
	}
	return s
}

// memSeries is the cgroup's usage, every third sample (300 ms).
func memSeries(x *lab.OOMRun) chart.Series {
	m := chart.Series{Name: x.Name, Color: runColor(x)}
	for i, p := range x.Memory {
		if i%3 == 0 || i == len(x.Memory)-1 {
			m.Points = append(m.Points, chart.Point{X: p.At.Sub(x.QueryStart).Seconds(), Y: float64(p.CgroupBytes) / mib})
		}
	}
	return m
}

var oomTmpl = newPage("oom", oomHTML, nil)

const oomHTML = `{{template "head" .}}{{template "style"}}
<style>pre { white-space: pre-wrap; word-break: break-all; background: #fafafa; padding: 6px; }</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="note">A throwaway PostgreSQL cluster in a memory cgroup (the "machine"), under pgbench load, runs the field report's sort with an absurd work_mem:
once <span class="off">unprotected</span> (the OOM killer ends the backend and the postmaster restarts every session), once <span class="on">protected</span> the way dbmem plan advises
(strict overcommit: the query gets "out of memory" and everything else stays up).{{if .Emulated}} <span class="bad">The protection was EMULATED</span>: see below how it differs from the real setting.{{end}}</p>
{{template "facts" .}}

<h2>The two runs</h2>
<table>
{{range $i, $row := .Rows}}{{if eq $i 0}}<tr>{{range $row}}<th>{{.}}</th>{{end}}</tr>
{{else}}<tr>{{range $j, $c := $row}}{{if eq $j 0}}<td>{{$c}}</td>{{else}}<td class="n">{{$c}}</td>{{end}}{{end}}</tr>
{{end}}{{end}}</table>

<h2>Charts</h2>
<div class="charts">{{range .Charts}}{{.}}{{end}}</div>

{{range .Runs}}<h2 class="{{if eq .Name "unprotected"}}off{{else}}on{{end}}">{{.Name}}: {{.Outcome}}</h2>
{{if .QueryError}}<p>The query's session was told: <code>{{.QueryError}}</code></p>{{end}}
{{if .KillLine}}<p>Kernel: <code>{{.KillLine}}</code></p>{{end}}
<p>Server log:</p><pre>{{range .ServerLog}}{{.}}
{{end}}</pre>
<p><b>dbmem postmortem</b>: {{if .Verdict.Explains}}{{.Verdict.Summary}}{{else}}<span class="bad">{{.Verdict.Summary}}</span>{{end}}</p>
<details><summary>dbmem postmortem's report</summary><pre>{{.PostmortemText}}</pre></details>
{{end}}

{{with .Protection}}<h2>The protection</h2>
{{if .Real}}<p>vm.overcommit_memory=2 was set on the host for the query's duration.</p>
{{with .Strict}}<ul>{{range .Proof}}<li>proved: {{.}}</li>{{end}}</ul>{{end}}
{{else}}<p><span class="bad">EMULATED</span>: the host's vm.overcommit_memory was not changed. RLIMIT_AS of the postmaster = a new backend's VmSize + the budget.</p>
<table class="facts">
<tr><th>formula</th><td>{{.Formula}}</td></tr>
<tr><th>ratio</th><td>{{.Ratio}}</td></tr>
</table>
<ul>{{range .Differs}}<li>{{.}}</li>{{end}}</ul>{{end}}{{end}}

<h2>Next to the field report (seed 001)</h2>
<table><tr><th></th><th>field report</th><th>this run</th></tr>
{{range .Field}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td><td>{{index . 2}}</td></tr>
{{end}}</table>

{{template "restored" .R}}
<p><small>Written by dbmem lab oom ({{.R.Schema}}); took {{.Took}}.</small></p>
</body>
</html>
`
