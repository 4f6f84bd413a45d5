package htmlreport

import (
	"fmt"
	"html/template"
	"io"
	"time"

	"github.com/dbmem/dbmem/internal/lab"
	"github.com/dbmem/dbmem/internal/units"
)

// page is what the template shows.
type page struct {
	R      *lab.Result
	Title  string
	Facts  [][2]string
	Cost   [][]string
	Charts []template.HTML
	Stages []stageTable
	Field  [][]string
	Bench  *lab.Bench
	Took   string
}

// stageTable is one mode's readings.
type stageTable struct {
	Mode string
	Rows [][]string
}

// Write renders the result as one self-contained HTML page: inline CSS and
// SVG charts, no script, no external resource, so it opens offline.
func Write(w io.Writer, r *lab.Result) error {
	p := page{R: r, Title: "dbmem lab: what a PostgreSQL connection costs, huge_pages off and on",
		Facts: facts(r), Cost: lab.CostRows(r), Charts: charts(r), Stages: stages(r),
		Field: fieldRows(r), Bench: r.Bench, Took: r.Elapsed.Round(time.Second).String()}
	return tmpl.Execute(w, p)
}

func facts(r *lab.Result) [][2]string {
	h, c := r.Host, r.Config
	f := [][2]string{
		{"Host", fmt.Sprintf("%s, kernel %s, %d CPUs, %s RAM, THP %s", h.Hostname, h.KernelRelease, h.CPUs, units.Bytes(h.MemTotalBytes), h.THP)},
		{"PostgreSQL", h.PGVersion},
		{"shared_buffers", units.Bytes(c.SharedBuffersBytes)},
		{"Connections", fmt.Sprintf("%d idle, each read pgbench_accounts (%s, scale %d, fillfactor %d) through shared_buffers", c.Connections, units.Bytes(r.TableBytes), c.Scale, c.Fillfactor)},
		{"Run", fmt.Sprintf("%s, took %s", r.StartedAt.Format(time.RFC3339), r.Elapsed.Round(time.Second))},
	}
	if p := r.Pool; p != nil {
		f = append(f, [2]string{"Huge page pool", fmt.Sprintf("+%d pages (%s); vm.nr_hugepages %d → %d → %d", p.Needed, p.Source, p.Before, p.Set, p.After)})
	}
	return f
}

// fieldRows sets this run next to the field reports' figures.
func fieldRows(r *lab.Result) [][]string {
	rows := [][]string{{"Field report (seed 000): 80 connections, 192 GB RAM", "25 GB page tables", "61 MB page tables"},
		{"Field report (seed 002): Pss_Anon + VmPTE per connection", "7.6 MiB", "1.3 MiB"}}
	this := []string{fmt.Sprintf("This run: %d connections", r.Config.Connections)}
	per := []string{"This run: ground truth per connection (dbmem)"}
	for _, want := range []lab.Mode{lab.ModeOff, lab.ModeOn} {
		pt, pc := "-", "-"
		for _, m := range r.Modes {
			if m.HugePages == want {
				pt = lab.SignedBytes(m.Cost.PageTablesRiseBytes) + " page tables"
				pc = fmt.Sprintf("%s (%s)", lab.SignedBytes(int64(m.Cost.PerConn(float64(m.Cost.TruthBytes)))), lab.SignedBytes(int64(m.Cost.PerConn(float64(m.Cost.PredictedBytes)))))
			}
		}
		this, per = append(this, pt), append(per, pc)
	}
	return append(rows, this, per)
}

func stages(r *lab.Result) []stageTable {
	var out []stageTable
	for _, m := range r.Modes {
		st := stageTable{Mode: string(m.HugePages)}
		for _, rd := range m.Readings {
			settled := "yes"
			if !rd.Settle.Settled {
				settled = "no"
			}
			st.Rows = append(st.Rows, []string{rd.Stage, fmt.Sprint(rd.Connections), units.Bytes(rd.MemAvailableBytes), units.Bytes(rd.UsedBytes),
				units.Bytes(rd.PageTablesBytes), units.Bytes(rd.CommittedASBytes), units.Bytes(rd.ShmemBytes),
				fmt.Sprintf("%d/%d/%d", rd.HugePagesTotal, rd.HugePagesFree, rd.HugePagesRsvd),
				procs(rd.Procs), fmt.Sprintf("%s, ±%s", settled, units.Bytes(rd.Settle.SpreadBytes))})
		}
		out = append(out, st)
	}
	return out
}

func procs(p *lab.ProcSample) string {
	if p == nil {
		return "-"
	}
	c := p.Checkpointer
	return fmt.Sprintf("checkpointer RSS %s Pss %s oom %d; postmaster oom %d; %d clients RSS %s",
		units.Bytes(c.RSSBytes), units.Bytes(c.PssBytes), c.OOMScore, p.Postmaster.OOMScore, p.Clients.Count, units.Bytes(p.Clients.RSSBytes))
}

var tmpl = newPage("lab", pageHTML, nil)
