package audit

import (
	"html/template"

	"github.com/dbmem/dbmem/internal/units"
)

var page = template.Must(template.New("audit").Funcs(template.FuncMap{
	"bytes":    units.Bytes,
	"optbytes": units.OptBytes,
	"sevclass": func(s interface{ String() string }) string { return "sev-" + s.String() },
	"upper":    func(s interface{ String() string }) string { return upper(s.String()) },
}).Parse(pageHTML))

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

// pageHTML is the audit. Everything is inline (no script, no external
// style, font or image): it must open offline, from a mail attachment,
// and print on A4.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>dbmem memory audit: {{.Host.Hostname}}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #222; margin: 24px auto; max-width: 1000px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 30px 0 8px; border-bottom: 2px solid #222; padding-bottom: 3px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
table { border-collapse: collapse; margin: 6px 0 12px; width: 100%; }
th, td { padding: 3px 8px; border-bottom: 1px solid #ddd; vertical-align: top; text-align: left; overflow-wrap: break-word; }
th { background: #f2f2f2; }
table.fixed { table-layout: fixed; } table.fixed td { overflow-wrap: anywhere; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; overflow-wrap: normal; }
.facts { width: auto; } .facts th { background: none; width: 150px; }
svg.chart { max-width: 100%; height: auto; display: block; margin: 8px 0; }
.swatch { display: inline-block; width: 12px; height: 12px; border: 1px solid #333; vertical-align: -1px; margin-right: 6px; }
.finding { border: 1px solid #ccc; border-left: 8px solid #999; padding: 6px 12px; margin: 12px 0; }
.finding h3 { margin: 4px 0; }
.sev { display: inline-block; font-weight: 700; font-size: 12px; padding: 0 6px; border: 2px solid #999; letter-spacing: .04em; }
.sev-critical { border-color: #D55E00; } .sev-warning { border-color: #E69F00; } .sev-notice { border-color: #0072B2; } .sev-info { border-color: #999999; }
.stake { font-weight: 600; }
.label { color: #555; font-size: 12px; text-transform: uppercase; letter-spacing: .05em; }
code, pre { font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
pre { background: #f6f6f6; padding: 8px; white-space: pre-wrap; overflow-wrap: break-word; }
.note { color: #555; }
nav ol { columns: 2; }
@page { size: A4; margin: 12mm 11mm 14mm; }
@media print {
  body { margin: 0; max-width: none; padding: 0; font-size: 10pt; }
  nav { display: none; }
  h2 { break-after: avoid; }
  .finding, svg.chart, tr { break-inside: avoid; }
  th { background: none; border-bottom: 1.5px solid #222; }
  pre { background: none; border: 1px solid #ccc; }
}
</style>
</head>
<body>
<h1>Memory audit of {{.Host.Hostname}}</h1>
<table class="facts">
<tr><th>host</th><td>{{.Host.Hostname}}, kernel {{.Host.KernelRelease}}</td></tr>
<tr><th>RAM</th><td>{{.RAMTotal}}</td></tr>
<tr><th>read at</th><td>{{.Taken}}</td></tr>
<tr><th>written by</th><td>{{.In.Command}}, {{.Written}}</td></tr>
<tr><th>findings</th><td>{{len .Findings}}{{if .Findings}}; the first: {{(index .Findings 0).Title}}{{end}}</td></tr>
</table>
<nav><ol>
<li><a href="#ram">Where the RAM goes</a></li>
<li><a href="#findings">Findings, by bytes at stake</a></li>
{{range $i, $x := .Instances}}<li><a href="#instance-{{$i}}">{{$x.Subject}}</a></li>{{end}}{{range $i, $m := .MySQL}}<li><a href="#mysql-{{$i}}">{{$m.Subject}}</a></li>{{end}}
<li><a href="#plan">The plan's settings</a></li>
{{if .In.XRay}}<li><a href="#xray">X-ray</a></li>{{end}}
<li><a href="#unread">Not read</a></li>
</ol></nav>

<h2 id="ram">Where the RAM goes</h2>
{{.RAMChart}}
<table><tr><th>share</th><th class="n">bytes</th><th class="n">of RAM</th><th>how it is counted</th></tr>
{{range .RAM}}<tr><td><span class="swatch" style="background:{{.Color}}"></span>{{.Name}}</td><td class="n">{{.Value}}</td><td class="n">{{.Share}}</td><td>{{.Formula}}</td></tr>
{{end}}</table>
<p class="note">Shared memory in huge pages is inside the huge page pools. "unknown" is a share whose input was not read: it is left out of the chart, never drawn as zero.</p>

<h2 id="findings">Findings, by bytes at stake</h2>
{{if not .Findings}}<p>No findings.</p>{{end}}
{{range .Findings}}<div class="finding {{sevclass .Severity}}">
<h3>#{{.Rank}} <span class="sev {{sevclass .Severity}}">{{upper .Severity}}</span> {{.Title}}</h3>
<p><code>{{.ID}}</code> on {{.Subject}}</p>
<p><span class="label">at stake</span> <span class="stake">{{.Stake}}</span>{{with .StakeFormula}}: {{.}}{{end}}</p>
{{if .Evidence}}<table class="fixed"><colgroup><col style="width:26%"><col style="width:50%"><col style="width:24%"></colgroup><tr><th>evidence</th><th>value</th><th>source</th></tr>
{{range .Evidence}}<tr><td>{{.Name}}</td><td>{{.Value}}</td><td>{{.Source}}</td></tr>
{{end}}</table>{{end}}
<p><span class="label">why</span> {{.Why}}</p>
<p><span class="label">fix</span> {{.Fix}}</p>
{{if .Settings}}<table class="fixed"><colgroup><col style="width:26%"><col style="width:16%"><col style="width:12%"><col style="width:46%"></colgroup><tr><th>set</th><th>value</th><th>now</th><th>formula</th></tr>
{{range .Settings}}<tr><td>{{.Target}} {{.Name}}{{with .Unit}} in {{.}}{{end}}</td><td>{{.Value}}</td><td>{{.Current}}</td><td>{{.Formula}}</td></tr>
{{end}}</table>{{end}}
</div>
{{end}}

{{range $i, $x := .Instances}}<h2 id="instance-{{$i}}">{{$x.Subject}}</h2>
<table class="facts">
<tr><th>version</th><td>{{$x.Version}}</td></tr>
<tr><th>settings read</th><td>{{$x.Connection}}</td></tr>
<tr><th>shared memory</th><td>{{$x.Shared}}</td></tr>
</table>
<h3>Private cost per role</h3>
<p class="note">Private cost is Pss_Anon + VmPTE + VmSwap: what one more such process costs beyond the shared memory.</p>
{{$x.RolesChart}}
<table><tr><th>role</th><th class="n">processes</th><th class="n">sum</th><th class="n">min</th><th class="n">median</th><th class="n">95th pct</th><th class="n">max</th></tr>
{{range $x.Roles}}<tr><td>{{.Role}}{{if .Estimated}} ({{.Estimated}} by RssAnon: over-estimates){{end}}</td><td class="n">{{.Read}}{{if ne .Read .Processes}} of {{.Processes}}{{end}}</td>{{if .Read}}<td class="n">{{bytes .Sum}}</td><td class="n">{{bytes .Min}}</td><td class="n">{{bytes .Median}}</td><td class="n">{{bytes .P95}}</td><td class="n">{{bytes .Max}}</td>{{else}}<td class="n" colspan="5">unknown: not read</td>{{end}}</tr>
{{end}}</table>
<h3>Page-table projection</h3>
{{with $x.Projection}}{{$x.PTChart}}
<p>At max_connections = {{.MaxConnections}}: {{.Formula}}. Now: {{if .NowVmPTE}}VmPTE {{optbytes .NowVmPTE}} over {{.NowProcesses}} processes{{else}}VmPTE unknown (a process's status was not read){{end}}.</p>
{{else}}<p>Not projected: the shared segment or max_connections was not read.</p>{{end}}
<h3>Budget</h3>
{{with $x.Budget}}<p>Limit {{bytes .LimitBytes}} ({{.LimitSource}}: {{.LimitFormula}}); {{bytes .TotalBytes}} with {{.Concurrency}} active sessions ({{.ConcurrencySource}}){{if .Fits}}: fits{{else}}: does NOT fit{{end}}. Worst case {{bytes .WorstCase.Bytes}}: {{.WorstCase.Formula}}.</p>
<table><tr><th>line</th><th class="n">bytes</th><th>formula</th></tr>
{{range .Lines}}<tr><td>{{if .Minus}}minus {{end}}{{.Name}}</td><td class="n">{{bytes .Bytes}}</td><td>{{.Formula}}</td></tr>
{{end}}</table>
<table><tr><th>setting</th><th>now</th><th>budget</th><th>formula</th></tr>
{{range .Settings}}<tr><td>{{.Name}}</td><td>{{.Current}}</td><td>{{.Value}}</td><td>{{.Formula}}</td></tr>
{{end}}</table>
{{range .Gaps}}<p class="note">Not read: {{.What}}: {{.Why}}</p>{{end}}
{{else}}<p>Not computed (report --no-budget, or check, which does not budget: <code>dbmem plan</code> shows it).</p>{{end}}
{{end}}{{range $i, $m := .MySQL}}

<h2 id="mysql-{{$i}}">{{$m.Subject}}</h2>
<table class="facts">
<tr><th>version</th><td>{{$m.Version}}</td></tr>
<tr><th>settings read</th><td>{{$m.Connection}}</td></tr>
<tr><th>buffer pool</th><td>innodb_buffer_pool_size {{$m.PoolSetting}}; {{$m.Pool}}</td></tr>
<tr><th>per thread now</th><td>{{$m.Threads}}</td></tr>
</table>
<h3>Worst case</h3>
<p>Global buffers + max_connections x (per-thread buffers + one in-memory temporary table) + performance_schema: what the settings allow when every connection runs its hungriest query at once; nothing in the server caps it.</p>
{{$m.Chart}}
<p><span class="label">worst case</span> <span class="stake">{{$m.Total}}</span> ({{$m.TotalShare}} of RAM){{if not $m.Known}}: {{if $m.Missing}}not read: {{range $j, $n := $m.Missing}}{{if $j}}, {{end}}{{$n}}{{end}}{{else}}performance_schema's memory was not measured{{end}}{{end}}</p>
<table><tr><th>term</th><th class="n">bytes</th><th>formula</th></tr>
{{range $m.Global}}<tr><td>{{.Name}}</td><td class="n">{{bytes .Bytes}}</td><td>{{.Formula}}</td></tr>
{{end}}<tr><td><b>global</b></td><td class="n">{{$m.GlobalSum}}</td><td></td></tr>
{{range $m.PerThread}}<tr><td>per thread: {{.Name}}</td><td class="n">{{bytes .Bytes}}</td><td>{{.Formula}}</td></tr>
{{end}}<tr><td><b>per thread</b></td><td class="n">{{$m.PerThreadSum}}</td><td></td></tr>
<tr><td>connections</td><td colspan="2">{{$m.Connections}}</td></tr>
<tr><td>performance_schema</td><td colspan="2">{{$m.PerfSchema}}</td></tr>
<tr><td>page tables</td><td colspan="2">{{$m.PageTables}}</td></tr>
</table>{{end}}

<h2 id="plan">The plan's settings</h2>
{{with .In.Plan}}<p class="note">What <code>dbmem plan</code> computes for the running instances ({{.Source}}); <code>dbmem plan --format ...</code> renders them as files, <code>dbmem apply</code> applies them.</p>
<table class="fixed"><colgroup><col style="width:16%"><col style="width:17%"><col style="width:14%"><col style="width:8%"><col style="width:31%"><col style="width:14%"></colgroup><tr><th>where</th><th>setting</th><th>value</th><th>now</th><th>formula</th><th>takes effect</th></tr>
{{range .Settings}}<tr><td>{{.Target}}{{with .Unit}}<br>{{.}}{{end}}{{with .Role}}<br>role {{.}}{{end}}</td><td>{{.Name}}</td><td>{{.Value}}</td><td>{{.Current}}</td><td>{{.Formula}}</td><td>{{if .Restart}}restart {{.Restart}}{{else}}live{{end}}</td></tr>
{{end}}</table>
{{range .Notes}}<p class="note">{{.}}</p>{{end}}
{{range .LeftOut}}<p class="note">Left out: {{.Subject}}: {{.Why}}</p>{{end}}
{{else}}<p>{{if .In.PlanNote}}{{.In.PlanNote}}{{else}}Not computed.{{end}}</p>{{end}}

{{if .In.XRay}}<h2 id="xray">X-ray of the costliest backends</h2>
<pre>{{.XRay}}</pre>{{end}}

<h2 id="unread">Not read</h2>
{{if .In.Skipped}}<table><tr><th>check not evaluated</th><th>on</th><th>missing</th></tr>
{{range .In.Skipped}}<tr><td>{{.ID}}</td><td>{{.Subject}}</td><td>{{range $j, $m := .Missing}}{{if $j}}; {{end}}{{$m}}{{end}}</td></tr>
{{end}}</table>{{else}}<p>Every check had its inputs.</p>{{end}}
{{if .In.Snapshot.Gaps}}<table><tr><th>not read</th><th>why</th></tr>
{{range .In.Snapshot.Gaps}}<tr><td>{{.What}}</td><td>{{.Why}}</td></tr>
{{end}}</table>{{end}}
<p class="note">Written by {{.In.Command}}. Self-contained: no script, no external style, font or image.</p>
</body>
</html>
`
