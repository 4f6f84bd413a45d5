package htmlreport

import "html/template"

// newPage parses a page's template with the parts every page shares.
func newPage(name, text string, funcs template.FuncMap) *template.Template {
	return template.Must(template.Must(template.New(name).Funcs(funcs).Parse(partsHTML)).Parse(text))
}

// partsHTML are the parts every page has: "head" (up to its title),
// "style", "facts" and "restored" (the changes to the host of the
// result, and its notes). Everything is inline: a page must open offline
// and from a mail attachment.
const partsHTML = `{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
{{end}}{{define "style"}}<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #222; margin: 24px auto; max-width: 1160px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eee; vertical-align: top; }
th { text-align: left; background: #f6f6f6; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.section td { font-weight: 600; background: #fafafa; }
.facts th { background: none; font-weight: 600; width: 140px; }
.charts { display: flex; flex-wrap: wrap; gap: 18px; }
.chart { border: 1px solid #e4e4e4; border-radius: 4px; background: #fff; }
.chart .title { font-size: 14px; font-weight: 600; fill: #222; }
.chart .tick { font-size: 11px; fill: #555; }
.chart .label { font-size: 12px; fill: #333; }
.chart .legend { font-size: 12px; fill: #222; }
.chart .value { font-size: 11px; fill: #222; }
.chart .grid { stroke: #eee; }
.chart .axis { stroke: #999; }
.off { color: #d9541e; font-weight: 600; }
.on { color: #2a7ab9; font-weight: 600; }
.bad { color: #b00020; font-weight: 600; }
.note { color: #555; }
small { color: #666; }
</style>{{end}}
{{define "facts"}}<table class="facts">{{range .Facts}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>{{end}}</table>{{end}}
{{define "restored"}}<h2>Changes to the host, undone</h2>
<table><tr><th>what</th><th>before</th><th>set</th><th>after</th><th>state</th></tr>
{{range .Restored}}<tr><td>{{.What}}</td><td>{{.Before}}</td><td>{{.Set}}</td><td>{{.After}}</td><td>{{if .OK}}restored{{else}}<span class="bad">NOT restored: {{.Error}}</span>{{end}}</td></tr>
{{end}}</table>
{{range .Notes}}<p class="note">Note: {{.}}</p>{{end}}{{end}}`

// pageHTML is the report page of `dbmem lab`.
const pageHTML = `{{template "head" .}}{{template "style"}}
</head>
<body>
<h1>{{.Title}}</h1>
<p class="note">A throwaway PostgreSQL cluster on this host; N idle connections that each read the whole table through shared_buffers,
once with <span class="off">huge_pages=off</span> and once with <span class="on">huge_pages=on</span>.
The ground truth is the fall of MemAvailable while the connections open (meminfo settled before each reading, the free pages on the per-CPU lists added back, the lab's own client memory subtracted).</p>
{{template "facts" .}}

<h2>Charts</h2>
<div class="charts">{{range .Charts}}{{.}}{{end}}</div>

<h2>What the connections cost</h2>
<table>
{{range $i, $row := .Cost}}{{if eq $i 0}}<tr>{{range $row}}<th>{{.}}</th>{{end}}</tr>
{{else if eq (len $row) 1}}<tr class="section"><td colspan="3">{{index $row 0}}</td></tr>
{{else}}<tr>{{range $j, $c := $row}}{{if eq $j 0}}<td>{{$c}}</td>{{else}}<td class="n">{{$c}}</td>{{end}}{{end}}</tr>
{{end}}{{end}}</table>
<p class="note">Percentages are errors against the ground truth. RSS counts every shared page again in every process that touched it;
Pss divides shared pages among the processes that map them; neither counts page tables. dbmem counts Pss_Anon + VmPTE (+ VmSwap).</p>

<h2>Next to the field reports</h2>
<table><tr><th></th><th class="off">huge_pages=off</th><th class="on">huge_pages=on</th></tr>
{{range .Field}}<tr><td>{{index . 0}}</td><td class="n">{{index . 1}}</td><td class="n">{{index . 2}}</td></tr>
{{end}}</table>

{{with .Bench}}<h2>pgbench select-only</h2>
<table><tr><th>run</th><th>huge_pages</th><th>TPS</th><th>transactions</th><th>page faults</th><th>faults/s</th></tr>
{{range .Runs}}<tr><td class="n">{{.Index}}</td><td class="{{.HugePages}}">{{.HugePages}}</td><td class="n">{{printf "%.0f" .TPS}}</td><td class="n">{{.Transactions}}</td><td class="n">{{.MinFlt}}</td><td class="n">{{printf "%.0f" .FaultsPerSec}}</td></tr>
{{end}}</table>
<p class="note">TLB counters: {{.TLB}}</p>{{end}}

<h2>Readings at each stage</h2>
{{range .Stages}}<h3 class="{{.Mode}}">huge_pages={{.Mode}}</h3>
<table><tr><th>stage</th><th>conns</th><th>MemAvailable</th><th>used</th><th>PageTables</th><th>Committed_AS</th><th>Shmem</th><th>HugePages T/F/R</th><th>processes</th><th>settled, spread</th></tr>
{{range .Rows}}<tr>{{range $j, $c := .}}{{if or (eq $j 0) (eq $j 8)}}<td>{{$c}}</td>{{else}}<td class="n">{{$c}}</td>{{end}}{{end}}</tr>
{{end}}</table>{{end}}

{{template "restored" .R}}
<p><small>Written by dbmem lab ({{.R.Schema}}); took {{.Took}}.</small></p>
</body>
</html>
`
