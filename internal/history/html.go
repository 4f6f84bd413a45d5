package history

import (
	"fmt"
	"html/template"
	"io"
	"time"

	"github.com/dbmem/dbmem/internal/growth"
)

// HTML writes a self-contained page: every chart as inline SVG with its
// legend, what the ticks cost, and the findings. No scripts, no external
// URLs: it can be mailed or attached to a ticket.
func HTML(w io.Writer, h *History) error {
	type legend struct{ Name, Color string }
	type chart struct {
		Title  string
		SVG    template.HTML
		Legend []legend
	}
	var charts []chart
	for _, c := range Charts(h) {
		ch := chart{Title: c.Title, SVG: template.HTML(c.SVG(h.From, h.To, Marks(c, h.Findings)))} // built with escaped text only
		for i, n := range c.Names {
			ch.Legend = append(ch.Legend, legend{n, palette[i%len(palette)]})
		}
		charts = append(charts, ch)
	}
	return page.Execute(w, map[string]any{
		"H": h, "Charts": charts,
		"Range": fmt.Sprintf("%s .. %s UTC (%s)", h.From.Format("2006-01-02 15:04:05"), h.To.Format("2006-01-02 15:04:05"),
			h.To.Sub(h.From).Round(time.Second)),
	})
}

var page = template.Must(template.New("history").Funcs(template.FuncMap{
	"dur": dur,
	"ts":  func(t time.Time) string { return t.Format("2006-01-02 15:04:05") },
	"inc": func(i int) int { return i + 1 },
	"who": func(g Growing) string {
		if g.Kind == "backend" {
			return fmt.Sprintf("pid %s %s %s@%s", g.PID, g.Role, g.User, g.Database)
		}
		return "role " + g.Role
	},
	"bytes":    func(v float64) string { return Format(v, UnitBytes) },
	"rate":     growth.Rate,
	"forecast": forecastText,
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>dbmem history {{.H.Path}}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#222;margin:24px auto;max-width:820px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.legend span{display:inline-block;margin-right:14px;font-size:12px}
.legend i{display:inline-block;width:12px;height:3px;margin-right:4px;vertical-align:middle}
table{border-collapse:collapse;font-size:12px}td,th{padding:2px 8px;text-align:left;border-bottom:1px solid #ddd}
.num{text-align:right}
</style></head><body>
<h1>dbmem history</h1>
<p>{{.H.Path}}<br>{{.Range}}, {{.H.Samples}} samples</p>
<table><tr><th>tick</th><th class="num">count</th><th class="num">CPU avg</th><th class="num">CPU max</th><th class="num">wall avg</th></tr>
{{range .H.Costs}}<tr><td>{{.Mode}}</td><td class="num">{{.Ticks}}</td><td class="num">{{dur .AvgCPU}}</td><td class="num">{{dur .MaxCPU}}</td><td class="num">{{dur .AvgWall}}</td></tr>
{{end}}</table>
{{range .Charts}}<h2>{{.Title}}</h2>
<div class="legend">{{range .Legend}}<span><i style="background:{{.Color}}"></i>{{.Name}}</span>{{end}}</div>
{{.SVG}}
{{end}}
{{if .H.GrowthWindow}}<h2>Growth and time to OOM</h2>
<p>Steady growth of private cost (RssAnon + VmPTE + VmSwap) over the last {{.H.GrowthWindow}} of each series, and when each limit would be reached at that rate.</p>
{{if .H.Growing}}<table><tr><th>instance</th><th>what</th><th class="num">at the end</th><th class="num">rate</th><th class="num">R²</th><th>forecast (soonest first)</th><th>cause</th></tr>
{{range .H.Growing}}<tr><td>{{.Instance}}</td><td>{{who .}}</td><td class="num">{{bytes .Trend.Last}}</td><td class="num">{{rate .Trend.Rate}}</td><td class="num">{{printf "%.2f" .Trend.R2}}</td><td>{{forecast .Forecast}}</td><td>{{.Cause}}</td></tr>
{{end}}</table>{{else}}<p>No role or backend grew steadily.</p>{{end}}{{end}}
<h2>Findings</h2>
<p>Each finding is shaded, with its number, on the charts of what it is about: the host's, or its instance's.</p>
{{if .H.Findings}}<table><tr><th class="num">#</th><th>first seen</th><th>last seen</th><th class="num">ticks</th><th>severity</th><th>id</th><th>subject</th><th>title</th></tr>
{{range $i, $f := .H.Findings}}<tr><td class="num">{{inc $i}}</td><td>{{ts .First}}</td><td>{{ts .Last}}</td><td class="num">{{.Ticks}}</td><td>{{.Severity}}</td><td>{{.ID}}</td><td>{{.Subject}}</td><td>{{.Title}}</td></tr>
{{end}}</table>{{else}}<p>None recorded in this range.</p>{{end}}
</body></html>
`))
