package audit

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/chart"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
	"github.com/dbmem/dbmem/internal/xray"
)

// view is what the template reads: every number already formatted.
type view struct {
	In        Input
	Host      linux.Host
	Taken     string
	Written   string
	RAMTotal  string
	RAMChart  template.HTML
	RAM       []partRow
	Instances []instanceView
	MySQL     []mysqlView
	Findings  []findingView
	XRay      string
}

type partRow struct {
	Part
	Value, Share string
}

type instanceView struct {
	Subject, Version, Connection, Shared string
	Roles                                []RoleCost
	RolesChart                           template.HTML
	Projection                           *Projection
	PTChart                              template.HTML
	Budget                               *budget.Result
}

type findingView struct {
	finding.Finding
	Rank  int
	Stake string
}

// Write renders the audit.
func Write(w io.Writer, in Input) error {
	if in.Snapshot == nil {
		return fmt.Errorf("audit: no snapshot to render")
	}
	s := in.Snapshot
	v := view{In: in, Host: s.Host, Taken: s.TakenAt.UTC().Format("2006-01-02 15:04:05 UTC"), RAMTotal: units.OptBytes(s.Host.Meminfo.MemTotalBytes)}
	v.Written = v.Taken
	if !in.Written.IsZero() {
		v.Written = in.Written.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	v.RAM, v.RAMChart = ramRows(RAM(s), s.Host.Meminfo.MemTotalBytes)
	hugeDefault, _ := s.Host.DefaultPageSize()
	for _, pg := range s.Postgres {
		iv := instanceView{Subject: advise.PostgresSubject(pg), Version: pg.Version, Connection: pg.Connection, Shared: sharedText(pg.Shared)}
		iv.Roles = Roles(pg)
		iv.RolesChart = rolesChart(iv.Roles)
		if p, ok := Project(pg, hugeDefault); ok {
			iv.Projection, iv.PTChart = &p, p.Chart()
		}
		iv.Budget = in.Budgets[pg.PostmasterPID]
		v.Instances = append(v.Instances, iv)
	}
	v.MySQL = mysqlViews(s.MySQL, s.Host)
	for i, f := range Ranked(in.Findings) {
		fv := findingView{Finding: f, Rank: i + 1, Stake: "unknown"}
		if f.BytesAtStake != nil {
			fv.Stake = units.Bytes(*f.BytesAtStake)
		}
		v.Findings = append(v.Findings, fv)
	}
	if len(in.XRay) > 0 {
		var b strings.Builder
		if err := xray.WriteText(&b, in.XRay, 100); err != nil {
			return err
		}
		v.XRay = b.String()
	}
	return page.Execute(w, v)
}

// ramRows formats the parts and draws those that are known.
func ramRows(parts []Part, total *uint64) ([]partRow, template.HTML) {
	unit, div := "MiB", float64(1<<20)
	if total != nil && *total >= 4<<30 {
		unit, div = "GiB", 1<<30
	}
	var rows []partRow
	var bars []chart.Bar
	for _, p := range parts {
		r := partRow{Part: p, Value: units.OptBytes(p.Bytes), Share: units.OptPercent(p.Bytes, total)}
		rows = append(rows, r)
		if p.Bytes != nil {
			bars = append(bars, chart.Bar{Label: p.Name, Color: p.Color, Value: r.Value, V: float64(*p.Bytes) / div})
		}
	}
	limit := 0.0
	if total != nil {
		limit = float64(*total) / div
	}
	for _, b := range bars {
		limit = max(limit, b.V)
	}
	title := "Where the RAM goes (MemTotal " + units.OptBytes(total) + ")"
	return rows, template.HTML(chart.HBar(title, unit, bars, limit)) // built with escaped text only
}

// sharedText says how big the main shared segment is and its pages.
func sharedText(sh *postgres.SharedSegment) string {
	if sh == nil {
		return "unknown: the postmaster's mappings were not read"
	}
	kind := "base"
	if sh.Hugetlb {
		kind = "huge"
	}
	return fmt.Sprintf("%s in %s %s pages (%s)", units.Bytes(sh.SizeBytes), units.Bytes(sh.PageSizeBytes), kind, sh.Path)
}
