package lab

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/units"
)

// FieldReports are the figures the lab is compared with (seeds 000, 002).
const FieldReports = "Field reports: 25 GB of page tables for 80 connections without huge pages (192 GB host, 61 MB with them); " +
	"7.6 MiB vs 1.3 MiB per connection (Pss_Anon + VmPTE, huge_pages off vs on)."

// Text writes the terminal summary of a result.
func Text(w io.Writer, r *Result) error {
	var b strings.Builder
	writeHeader(&b, r)
	if len(r.Modes) > 0 {
		g := &grid{rows: CostRows(r)}
		g.render(&b)
	}
	writeWarnings(&b, r)
	writeBench(&b, r.Bench)
	writeFooter(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeHeader(b *strings.Builder, r *Result) {
	h, c := r.Host, r.Config
	fmt.Fprintf(b, "dbmem lab: PostgreSQL %s, kernel %s, %d CPUs, %s RAM, THP %s\n",
		h.PGVersion, h.KernelRelease, h.CPUs, units.Bytes(h.MemTotalBytes), h.THP)
	fmt.Fprintf(b, "shared_buffers %s; %d idle connections, each read pgbench_accounts (%s, scale %d, fillfactor %d) through shared_buffers\n",
		units.Bytes(c.SharedBuffersBytes), c.Connections, units.Bytes(r.TableBytes), c.Scale, c.Fillfactor)
	if p := r.Pool; p != nil {
		fmt.Fprintf(b, "huge page pool: %d pages of %s (%s), vm.nr_hugepages %d -> %d -> %d\n",
			p.Needed, units.Bytes(h.HugePageBytes), p.Source, p.Before, p.Set, p.After)
	}
	b.WriteString("\n")
}

// grid lays out rows: the first column left-aligned, the others right.
type grid struct{ rows [][]string }

func (g *grid) add(cells ...string) { g.rows = append(g.rows, cells) }

func (g *grid) render(b *strings.Builder) {
	var width []int
	for _, r := range g.rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len(c))
		}
	}
	for _, r := range g.rows {
		line := ""
		for i, c := range r {
			if i == 0 {
				line += fmt.Sprintf("%-*s", width[0], c)
			} else {
				line += fmt.Sprintf("  %*s", width[i], c)
			}
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

// row adds one line of the cost table: a label and one cell per mode.
func row(w *grid, label string, modes []*ModeResult, cell func(*ModeResult) string) {
	cells := []string{label}
	for _, m := range modes {
		cells = append(cells, cell(m))
	}
	w.add(cells...)
}

// CostRows is the comparison table of the modes: a header row, then one
// row per figure (a label and one cell per mode); rows with only a label
// start a section.
func CostRows(r *Result) [][]string {
	w := &grid{}
	ms := r.Modes
	row(w, fmt.Sprintf("What %d idle connections cost", r.Config.Connections), ms, func(m *ModeResult) string { return "huge_pages=" + string(m.HugePages) })
	row(w, "MemAvailable fall (ground truth)", ms, func(m *ModeResult) string { return truthCell(m.Cost, SignedBytes(m.Cost.TruthBytes)) })
	row(w, "  per connection", ms, func(m *ModeResult) string { return truthCell(m.Cost, perConn(m.Cost, m.Cost.TruthBytes)) })
	row(w, "used memory rise", ms, func(m *ModeResult) string { return m.Cost.withErr(SignedBytes(m.Cost.UsedRiseBytes), m.Cost.UsedErr) })
	row(w, "MemAvailable regained on close", ms, func(m *ModeResult) string { return m.Cost.withErr(SignedBytes(m.Cost.CloseRiseBytes), m.Cost.CloseErr) })
	row(w, "host noise (spread, open vs close)", ms, func(m *ModeResult) string { return units.Bytes(m.Cost.NoiseBytes) })
	row(w, "dbmem: sum of Pss_Anon + VmPTE", ms, func(m *ModeResult) string {
		return m.Cost.withErr(units.Bytes(m.Cost.PredictedBytes), m.Cost.PredictedErr)
	})
	row(w, "  per connection", ms, func(m *ModeResult) string { return perConn(m.Cost, int64(m.Cost.PredictedBytes)) })
	row(w, "sum of Pss", ms, func(m *ModeResult) string { return m.Cost.withErr(units.Bytes(m.Cost.PssBytes), m.Cost.PssErr) })
	row(w, "sum of RSS (ps, top)", ms, func(m *ModeResult) string { return m.Cost.withErr(units.Bytes(m.Cost.RSSBytes), m.Cost.RSSErr) })
	row(w, "A typical connection (the median reader)", nil, nil)
	for _, f := range typicalFields {
		f := f
		row(w, f.label, ms, func(m *ModeResult) string { return units.Bytes(f.get(m.Typical())) })
	}
	row(w, "Page tables", nil, nil)
	row(w, "VmPTE of the connections (sum)", ms, func(m *ModeResult) string { return units.Bytes(m.Cost.ReadersPTEBytes) })
	row(w, "PageTables rise (meminfo)", ms, func(m *ModeResult) string { return SignedBytes(m.Cost.PageTablesRiseBytes) })
	row(w, "  per connection per GiB read", ms, func(m *ModeResult) string { return units.Bytes(uint64(max(0, m.Cost.PageTablesPerConnGiB))) })
	row(w, "  VmPTE added by reading, per GiB", ms, func(m *ModeResult) string { return units.Bytes(uint64(m.Cost.ScanPTEPerGiB)) })
	row(w, "page faults to read it, per connection", ms, func(m *ModeResult) string { return fmt.Sprintf("%.0f", m.Cost.ScanFaultsPerCn) })
	row(w, "Committed_AS rise", ms, func(m *ModeResult) string { return SignedBytes(m.Cost.CommittedASRiseBytes) })
	row(w, "OOM killer's view (oom_score: 666 means no memory at all)", nil, nil)
	row(w, "highest oom_score of a reader", ms, func(m *ModeResult) string { return fmt.Sprint(m.Cost.MaxReaderOOMScore) })
	row(w, "checkpointer RSS / oom_score", ms, func(m *ModeResult) string { return procCell(m.Stage("open").Procs, true) })
	row(w, "postmaster RSS / oom_score", ms, func(m *ModeResult) string { return procCell(m.Stage("open").Procs, false) })
	return w.rows
}

// typicalFields are the figures shown for the median reader: what ps and
// top show against what it costs.
var typicalFields = []struct {
	label string
	get   func(Backend) uint64
}{
	{"RSS (ps, top)", func(b Backend) uint64 { return b.RSSBytes }},
	{"  RssShmem", func(b Backend) uint64 { return b.RssShmemBytes }},
	{"  RssAnon", func(b Backend) uint64 { return b.RssAnonBytes }},
	{"huge pages mapped (not in RSS)", func(b Backend) uint64 { return b.HugetlbBytes }},
	{"Pss", func(b Backend) uint64 { return b.PssBytes }},
	{"Pss_Anon", func(b Backend) uint64 { return b.PssAnonBytes }},
	{"VmPTE", func(b Backend) uint64 { return b.VmPTEBytes }},
}

// Typical returns the reader with the median private cost.
func (mr *ModeResult) Typical() Backend {
	if len(mr.Readers) == 0 {
		return Backend{}
	}
	rs := append([]Backend(nil), mr.Readers...)
	sort.Slice(rs, func(i, j int) bool { return rs[i].PrivateBytes() < rs[j].PrivateBytes() })
	return rs[len(rs)/2]
}

func procCell(p *ProcSample, checkpointer bool) string {
	if p == nil {
		return "-"
	}
	b := p.Postmaster
	if checkpointer {
		b = p.Checkpointer
	}
	return fmt.Sprintf("%s / %d", units.Bytes(b.RSSBytes), b.OOMScore)
}

// SignedBytes renders a difference of sizes: "-12.0 MiB" for a fall.
func SignedBytes(v int64) string {
	if v < 0 {
		return "-" + units.Bytes(uint64(-v))
	}
	return units.Bytes(uint64(v))
}

func perConn(c Cost, total int64) string { return SignedBytes(int64(c.PerConn(float64(total)))) }

// truthCell is a ground-truth figure, or "not measured" when the host
// moved too much for it to be one.
func truthCell(c Cost, s string) string {
	if c.noTruth() != "" {
		return "not measured (" + s + ")"
	}
	return s
}

// withErr appends the error against the ground truth, when there is one.
func (c Cost) withErr(s string, e *float64) string {
	if c.noTruth() != "" {
		return s
	}
	return withErr(s, e)
}

// withErr appends the error relative to the ground truth: "805 MiB (-0.9%)".
func withErr(s string, e *float64) string {
	if e == nil {
		return s
	}
	return fmt.Sprintf("%s (%s)", s, pct(*e))
}

func pct(e float64) string {
	switch {
	case e >= 10 || e <= -10:
		return fmt.Sprintf("%+.0fx", e+1)
	case e >= 1 || e <= -1:
		return fmt.Sprintf("%+.0f%%", e*100)
	}
	return fmt.Sprintf("%+.1f%%", e*100)
}

// writeWarnings says when the host moved too much for the ground truth.
func writeWarnings(b *strings.Builder, r *Result) {
	for _, m := range r.Modes {
		if why := m.Cost.noTruth(); why != "" {
			fmt.Fprintf(b, "huge_pages=%s: ground truth not measured: %s; the page tables above (each connection's own VmPTE) do not depend on it. "+
				"Run the lab on a quiet host for the comparison with MemAvailable.\n", m.HugePages, why)
		}
	}
}

func writeBench(b *strings.Builder, bench *Bench) {
	if bench == nil || len(bench.Runs) == 0 {
		return
	}
	fmt.Fprintf(b, "\npgbench select-only, %d clients, %.0f s per run, on a freshly started and prewarmed server\n", bench.Clients, bench.Seconds)
	g := &grid{}
	g.add("run", "huge_pages", "TPS", "page faults", "faults/s")
	for _, r := range bench.Runs {
		g.add(fmt.Sprint(r.Index), string(r.HugePages), fmt.Sprintf("%.0f", r.TPS), fmt.Sprint(r.MinFlt+r.MajFlt), fmt.Sprintf("%.0f", r.FaultsPerSec))
	}
	g.render(b)
	fmt.Fprintf(b, "TLB counters: %s\n", bench.TLB)
}

func writeFooter(b *strings.Builder, r *Result) {
	writeRestored(b, r.Restored, r.Notes)
	fmt.Fprintf(b, "%s\nTook %s.\n", FieldReports, r.Elapsed.Round(time.Second))
}

// writeRestored says, after a blank line, what each change to the host
// became (restored or not, and why), then the run's notes.
func writeRestored(b *strings.Builder, restored []HostChange, notes []string) {
	b.WriteString("\n")
	for _, x := range restored {
		state := "restored"
		if !x.OK {
			state = "NOT RESTORED: " + x.Error
		}
		fmt.Fprintf(b, "%s: %s -> %s -> %s (%s)\n", x.What, x.Before, x.Set, x.After, state)
	}
	for _, n := range notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
}
