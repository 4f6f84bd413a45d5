package audit

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/chart"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
)

// RoleCost is the private cost (Pss_Anon + VmPTE + VmSwap) of an
// instance's processes of one role.
type RoleCost struct {
	Role string
	// Processes is how many there are; Read how many were measured (the
	// statistics are over those).
	Processes, Read       int
	Estimated             int // measured with RssAnon: an over-estimate
	Sum, Min, Median, P95 uint64
	Max                   uint64
}

// Roles is an instance's private cost per role, the costliest first.
func Roles(in *postgres.Instance) []RoleCost {
	vals := map[string][]uint64{}
	rc := map[string]*RoleCost{}
	for _, p := range in.Processes {
		r := rc[string(p.Role)]
		if r == nil {
			r = &RoleCost{Role: string(p.Role)}
			rc[r.Role] = r
		}
		r.Processes++
		v, exact, ok := p.PrivateCost()
		if !ok {
			continue
		}
		r.Read++
		if !exact {
			r.Estimated++
		}
		vals[r.Role] = append(vals[r.Role], v)
	}
	var out []RoleCost
	for _, r := range rc {
		v := vals[r.Role]
		slices.Sort(v)
		if len(v) > 0 {
			r.Min, r.Max, r.Median, r.P95 = v[0], v[len(v)-1], rank(v, 0.5), rank(v, 0.95)
		}
		for _, x := range v {
			r.Sum += x
		}
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b RoleCost) int { return cmp.Or(cmp.Compare(b.Sum, a.Sum), cmp.Compare(a.Role, b.Role)) })
	return out
}

// rank is the nearest-rank percentile of sorted values.
func rank(v []uint64, q float64) uint64 {
	i := int(q*float64(len(v))+0.999999) - 1
	return v[max(0, min(i, len(v)-1))]
}

// rolesChart draws the per-role distribution, in MiB.
func rolesChart(roles []RoleCost) template.HTML {
	var rows []chart.Range
	for _, r := range roles {
		if r.Read == 0 {
			continue
		}
		rows = append(rows, chart.Range{Label: fmt.Sprintf("%s (%d)", r.Role, r.Read),
			Value: units.Bytes(r.Median) + " median, " + units.Bytes(r.Max) + " max",
			Min:   mib(r.Min), Median: mib(r.Median), P95: mib(r.P95), Max: mib(r.Max)})
	}
	if len(rows) == 0 {
		return ""
	}
	return template.HTML(chart.Ranges("Private cost per process, by role", "MiB", Green, rows)) // built with escaped text only
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// Projection is an instance's page tables at max_connections when every
// connection touches its whole shared segment, in base and in huge pages.
type Projection struct {
	MaxConnections int
	SharedBytes    uint64
	BasePage       uint64 // the page size the segment is in now
	HugePage       uint64
	BaseBytes      uint64 // in the segment's pages now
	HugeBytes      uint64 // in HugePage pages
	// NowProcesses and NowVmPTE are the instance's processes and their
	// VmPTE sum now (nil when a process's VmPTE was not read).
	NowProcesses int
	NowVmPTE     *uint64
	Formula      string
}

// Project computes the projection; ok is false when the segment or
// max_connections is unknown.
func Project(in *postgres.Instance, hugeDefault uint64) (Projection, bool) {
	n, ok := in.Settings.Int("max_connections")
	if !ok || n <= 0 || in.Shared == nil {
		return Projection{}, false
	}
	page := max(in.Shared.PageSizeBytes, 4096)
	huge := cmp.Or(hugeDefault, 2<<20)
	if in.Shared.Hugetlb {
		huge = page
	}
	p := Projection{MaxConnections: int(n), SharedBytes: in.Shared.SizeBytes, BasePage: page, HugePage: huge, NowProcesses: len(in.Processes)}
	p.BaseBytes = advise.PageTableBytes(p.MaxConnections, p.SharedBytes, page)
	p.HugeBytes = advise.PageTableBytes(p.MaxConnections, p.SharedBytes, huge)
	p.Formula = fmt.Sprintf("%d connections x %s shared / %s pages x 8 B = %s; in %s pages: %s",
		n, units.Bytes(p.SharedBytes), units.Bytes(page), units.Bytes(p.BaseBytes), units.Bytes(huge), units.Bytes(p.HugeBytes))
	var sum uint64
	for _, pr := range in.Processes {
		if pr.Status.VmPTEBytes == nil {
			return p, true
		}
		sum += *pr.Status.VmPTEBytes
	}
	p.NowVmPTE = &sum
	return p, true
}

// Chart draws the projection over 0..max_connections: solid in the
// segment's pages now, dashed in huge pages, and a dot for now.
func (p Projection) Chart() template.HTML {
	c := chart.Line{
		Title: "Page tables as connections touch the shared memory", Heading: true, Legend: true, Width: 680, Height: 300,
		X: chart.Axis{Title: "connections", Integer: true, Max: float64(p.MaxConnections)},
		Y: chart.Axis{Title: "page tables", Binary: true, Format: func(v float64) string { return units.Bytes(uint64(v)) }},
		Series: []chart.Series{
			{Name: units.Bytes(p.BasePage) + " pages", Color: Vermilion, Points: []chart.Point{{X: 0, Y: 0}, {X: float64(p.MaxConnections), Y: float64(p.BaseBytes)}}},
		},
	}
	if p.HugePage != p.BasePage {
		c.Series = append(c.Series, chart.Series{Name: units.Bytes(p.HugePage) + " pages", Color: Blue, Dash: "6 4",
			Points: []chart.Point{{X: 0, Y: 0}, {X: float64(p.MaxConnections), Y: float64(p.HugeBytes)}}})
	}
	if p.NowVmPTE != nil {
		c.Series = append(c.Series, chart.Series{Name: fmt.Sprintf("now: %d processes", p.NowProcesses), Color: Black,
			Points: []chart.Point{{X: float64(p.NowProcesses), Y: float64(*p.NowVmPTE)}}})
	}
	return template.HTML(c.SVG()) // built with escaped text only
}
