package htmlreport

import (
	"fmt"
	"html/template"
	"io"
	"time"

	"github.com/dbmem/dbmem/internal/chart"
	"github.com/dbmem/dbmem/internal/lab"
	"github.com/dbmem/dbmem/internal/units"
)

// budgetPage is what the budget template shows.
type budgetPage struct {
	R      *lab.BudgetResult
	Title  string
	Facts  [][2]string
	Rows   [][]string
	Charts []template.HTML
	Took   string
}

// configColor is each configuration's colour, everywhere on the page.
var configColor = map[string]string{lab.ConfigSmall: colorGrey, lab.ConfigDBMem: colorOn, lab.ConfigPGTune: colorOff}

// WriteBudget renders a budget result as one self-contained HTML page, in
// the lab's style: inline CSS and SVG, no script, no external resource.
func WriteBudget(w io.Writer, r *lab.BudgetResult) error {
	p := budgetPage{R: r, Title: "dbmem lab budget: one mixed workload under PGTune's settings, dbmem's budget and a small work_mem",
		Facts: budgetFacts(r), Rows: lab.BudgetRows(r), Charts: budgetCharts(r), Took: r.Elapsed.Round(time.Second).String()}
	return budgetTmpl.Execute(w, p)
}

func budgetFacts(r *lab.BudgetResult) [][2]string {
	h, c := r.Host, r.Config
	f := [][2]string{
		{"Host", fmt.Sprintf("%s, kernel %s, %d CPUs, %s RAM", h.Hostname, h.KernelRelease, h.CPUs, units.Bytes(h.MemTotalBytes))},
		{"PostgreSQL", h.PGVersion},
		{"The small host", fmt.Sprintf("a memory cgroup of %s, no swap; shared_buffers %s (PGTune's RAM / 4) in every run", units.Bytes(c.LimitBytes), units.Bytes(c.SharedBuffersBytes))},
		{"OLTP role", fmt.Sprintf("%q: pgbench select-only, %d clients, scale %d, at least %gs and as long as the reports", lab.OLTPRole, c.OLTPClients, c.PgbenchScale, c.RunSeconds)},
		{"Reporting role", fmt.Sprintf("%q: %d sessions, %d round(s) each of the queries below, over %d fact rows and %d dimension rows", lab.ReportRole, c.Reporters, c.Rounds, c.FactRows, c.DimRows)},
		{"Run", fmt.Sprintf("%s, took %s", r.StartedAt.Format(time.RFC3339), r.Elapsed.Round(time.Second))},
	}
	if g := r.Cgroup; g != nil {
		f[2][1] += fmt.Sprintf(" (cgroup v%d %s)", g.Version(), g.Path)
	}
	return f
}

// budgetCharts: the private memory sampled in each run against dbmem's
// budget, and the temp bytes of each run.
func budgetCharts(r *lab.BudgetResult) []template.HTML {
	var mem []chart.Series
	var temp []chart.Bar
	xmax := 1.0
	for _, c := range r.Configs {
		s := chart.Series{Name: c.Name, Color: configColor[c.Name]}
		for _, p := range c.Samples {
			s.Points = append(s.Points, chart.Point{X: p.Seconds, Y: float64(p.PrivateBytes) / mib})
			xmax = max(xmax, p.Seconds)
		}
		mem = append(mem, s)
		if c.TempBytes != nil {
			temp = append(temp, chart.Bar{Label: c.Name, Color: configColor[c.Name], Value: units.Bytes(*c.TempBytes), V: float64(*c.TempBytes) / mib})
		}
	}
	if b := r.Budget; b != nil {
		y := float64(b.TotalBytes) / mib
		mem = append(mem, chart.Series{Name: "dbmem's budget", Color: colorOn, Dash: "6 4", Points: []chart.Point{{X: 0, Y: y}, {X: xmax, Y: y}}})
	}
	lim := float64(r.Config.LimitBytes) / mib
	mem = append(mem, chart.Series{Name: "cgroup limit", Color: colorGrey, Dash: "2 3", Points: []chart.Point{{X: 0, Y: lim}, {X: xmax, Y: lim}}})
	return []template.HTML{
		template.HTML(chart.Line{Title: "Private memory of the cluster (Pss_Anon + VmPTE), each run", Heading: true, Legend: true,
			X: chart.Axis{Title: "seconds since the workload started"}, Y: chart.Axis{Title: "MiB"}, Series: mem}.SVG()),
		template.HTML(chart.VBar("Temp bytes written (pg_stat_database)", "MiB", temp)),
	}
}

var budgetTmpl = newPage("budget", budgetHTML, template.FuncMap{"bytes": units.Bytes})

const budgetHTML = `{{template "head" .}}{{template "style"}}
<style>pre { white-space: pre-wrap; word-break: break-all; background: #fafafa; padding: 6px; } .pass { color: #1b7a2e; font-weight: 600; }</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="note">A throwaway PostgreSQL cluster in a memory cgroup (the small host) runs the same mixed workload three times:
under a uniformly small work_mem (the temp-bytes baseline, during which dbmem measures the cluster as <code>dbmem plan</code> does),
under dbmem's budget, and under PGTune's settings for the same host. PGTune's outcome is reported as measured.</p>
{{template "facts" .}}

<h2>Checks</h2>
<table>{{range .R.Checks}}<tr><td>{{if .Pass}}<span class="pass">PASS</span>{{else}}<span class="bad">FAIL</span>{{end}}</td><td>{{.Name}}</td><td>{{.Detail}}</td></tr>
{{end}}</table>

<h2>The runs side by side</h2>
<table>
{{range $i, $row := .Rows}}{{if eq $i 0}}<tr>{{range $row}}<th>{{.}}</th>{{end}}</tr>
{{else}}<tr>{{range $j, $c := $row}}{{if eq $j 0}}<td>{{$c}}</td>{{else}}<td class="n">{{$c}}</td>{{end}}{{end}}</tr>
{{end}}{{end}}</table>

<h2>Charts</h2>
<div class="charts">{{range .Charts}}{{.}}{{end}}</div>

{{with .R.Budget}}<h2>dbmem's budget, measured during uniform-small</h2>
<p>Limit {{.LimitFormula}}; {{.Concurrency}} active sessions ({{.ConcurrencySource}}).</p>
<table><tr><th>line</th><th>formula</th><th>bytes</th></tr>
{{range .Lines}}<tr><td>{{.Name}}</td><td>{{.Formula}}</td><td class="n">{{bytes .Bytes}}</td></tr>
{{end}}</table>
<table><tr><th>role</th><th>spill</th><th>proposed work_mem</th><th>why</th></tr>
{{range .Roles}}<tr><td>{{.Name}}</td><td class="n">{{if .SpillBytes}}{{bytes .SpillBytes}}{{else}}none{{end}}</td><td>{{.Proposed}}</td><td>{{.Why}}</td></tr>
{{end}}</table>{{end}}

<h2>Each run's settings and server log</h2>
{{range .R.Configs}}<h3>{{.Name}}</h3><p class="note">{{.Source}}</p>
<p>{{range .Settings}}<code>{{.Name}} = {{.Value}}</code> {{end}}{{range .RoleSettings}}<code>ALTER ROLE {{.Role}} SET {{.Name}} = {{.Value}}</code> {{end}}</p>
{{if .ServerLog}}<pre>{{range .ServerLog}}{{.}}
{{end}}</pre>{{end}}
{{range .Queries}}{{if .FirstError}}<p>{{.Name}}: <code>{{.FirstError}}</code></p>{{end}}{{end}}
{{if .OLTP.Error}}<p>pgbench: <code>{{.OLTP.Error}}</code></p>{{end}}
{{end}}

<h2>The reporting role's queries</h2>
<ul>{{range .R.Config.Queries}}<li>{{.Name}}: <code>{{.SQL}}</code></li>{{end}}</ul>

{{template "restored" .R}}
<p><small>Written by dbmem lab budget ({{.R.Schema}}); took {{.Took}}.</small></p>
</body>
</html>
`
