package audit

import (
	"fmt"
	"html/template"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/chart"
	"github.com/dbmem/dbmem/internal/enginemem"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/units"
)

// mysqlView is one MySQL/MariaDB server's memory: its buffer pool (set and
// mapped), what each connection may take at worst, and the sum the
// settings allow (mysql.ComputeWorstCase, as `report` prints it).
type mysqlView struct {
	Subject, Version, Connection string
	// PoolSetting is innodb_buffer_pool_size as read ("unknown" when not);
	// Pool the mapping found in the process (size, pages, resident).
	PoolSetting, Pool string
	// Threads is the measured private memory outside the pool per thread.
	Threads string
	// Known is false when a term of the worst case was not read: the
	// total is then shown as unknown, never as a sum missing a term.
	Known                     bool
	Missing                   []string
	Global, PerThread         []enginemem.Line
	GlobalSum, PerThreadSum   string
	MaxConnections            int
	Connections, PerfSchema   string
	PageTables                string
	Total, TotalShare, Growth string
	Chart                     template.HTML
}

// mysqlSettingsNeeded are the settings without which the worst case is unknown.
var mysqlSettingsNeeded = []string{"innodb_buffer_pool_size", "max_connections", "sort_buffer_size", "join_buffer_size",
	"read_buffer_size", "read_rnd_buffer_size", "thread_stack", "tmp_table_size", "max_heap_table_size"}

func mysqlViews(ms []*mysql.Instance, h linux.Host) []mysqlView {
	var out []mysqlView
	for _, in := range ms {
		out = append(out, mysqlInstanceView(in, h))
	}
	return out
}

func mysqlInstanceView(in *mysql.Instance, h linux.Host) mysqlView {
	v := mysqlView{Subject: advise.MySQLSubject(in), Version: orUnknownText(in.Version), Connection: in.Connection,
		Pool: poolText(in.Memory.BufferPool), Threads: threadsText(in.Memory)}
	v.PoolSetting = units.Unknown
	if b, ok := in.Settings.Bytes("innodb_buffer_pool_size"); ok {
		v.PoolSetting = units.Bytes(b) + " (" + string(in.Settings["innodb_buffer_pool_size"].Source) + ")"
	}
	for _, n := range mysqlSettingsNeeded {
		if _, ok := in.Settings[n]; !ok {
			v.Missing = append(v.Missing, n)
		}
	}
	wc := mysql.ComputeWorstCase(in)
	psKnown := wc.Measured("performance_schema")
	v.Known = len(v.Missing) == 0 && psKnown
	v.Global, v.PerThread, v.MaxConnections = globalLines(wc), wc.PerConnection, wc.MaxConnections
	v.GlobalSum, v.PerThreadSum = units.Bytes(wc.Sum(enginemem.Global, enginemem.InHugePages)), units.Bytes(wc.Sum(enginemem.PerConnection))
	v.Connections, v.PageTables = lineText(wc, "connections", true), lineText(wc, "page tables", true)
	v.PerfSchema = lineText(wc, "performance_schema", psKnown)
	v.Total, v.TotalShare = units.Unknown, units.Unknown
	if v.Known {
		v.Total, v.TotalShare = units.Bytes(wc.TotalBytes), units.OptPercent(&wc.TotalBytes, h.Meminfo.MemTotalBytes)
		v.Chart = worstCaseChart(wc, h.Meminfo.MemTotalBytes)
	}
	return v
}

// globalLines are the lines allocated once (in private memory or in huge
// pages), the buffer pool first.
func globalLines(wc enginemem.WorstCase) []enginemem.Line {
	var out []enginemem.Line
	for _, l := range wc.Lines {
		if l.Scope == enginemem.Global || l.Scope == enginemem.InHugePages {
			out = append(out, l)
		}
	}
	return out
}

// lineText is a line's bytes and formula, unknown when not measured.
func lineText(wc enginemem.WorstCase, name string, known bool) string {
	l, ok := wc.Line(name)
	if !ok {
		return units.Unknown
	}
	if !known {
		return units.Unknown + " (" + l.Formula + ")"
	}
	return units.Bytes(l.Bytes) + " (" + l.Formula + ")"
}

func orUnknownText(s string) string {
	if s == "" {
		return units.Unknown
	}
	return s
}

// poolText says where the buffer pool is mapped and how much is resident.
func poolText(bp *mysql.BufferPool) string {
	if bp == nil {
		return "mapping not found in the process (see Not read)"
	}
	pages := "4 KiB pages"
	if bp.Hugetlb {
		pages = units.Bytes(bp.PageSizeBytes) + " huge pages"
	} else if bp.PageSizeBytes != 4096 && bp.PageSizeBytes != 0 {
		pages = units.Bytes(bp.PageSizeBytes) + " pages"
	}
	return fmt.Sprintf("%s mapped in %d mapping(s) in %s; %s resident", units.Bytes(bp.SizeBytes), len(bp.Mappings), pages, units.Bytes(bp.ResidentBytes))
}

// threadsText is the measured private memory outside the pool, per thread.
func threadsText(m mysql.Memory) string {
	if m.PerThreadBytes == nil || m.Threads <= 0 {
		return units.Unknown + " (the process's private memory or thread count was not read)"
	}
	how := "Pss_Anon"
	if !m.PrivateExact {
		how = "RssAnon, an over-estimate"
	}
	return fmt.Sprintf("~%s per thread now: %s private (%s) outside the buffer pool over %d threads",
		units.Bytes(*m.PerThreadBytes), units.OptBytes(m.OutsidePoolBytes), how, m.Threads)
}

// worstCaseChart draws the worst case's terms beside the RAM.
func worstCaseChart(wc enginemem.WorstCase, total *uint64) template.HTML {
	unit, div := "MiB", float64(1<<20)
	if wc.TotalBytes >= 4<<30 || total != nil && *total >= 4<<30 {
		unit, div = "GiB", 1<<30
	}
	bar := func(label, color string, b uint64) chart.Bar {
		return chart.Bar{Label: label, Color: color, Value: units.Bytes(b), V: float64(b) / div}
	}
	global := wc.Sum(enginemem.Global, enginemem.InHugePages)
	var pool uint64
	if gs := globalLines(wc); len(gs) > 0 {
		pool = gs[0].Bytes // the buffer pool's line is always first
	}
	conns, _ := wc.Line("connections")
	ps, _ := wc.Line("performance_schema")
	bars := []chart.Bar{bar("buffer pool", Blue, pool), bar("other global buffers", SkyBlue, global-pool),
		bar(fmt.Sprintf("%d connections at worst", wc.MaxConnections), Vermilion, conns.Bytes),
		bar("performance_schema", Purple, ps.Bytes), bar("worst case", Black, wc.TotalBytes)}
	if total != nil {
		bars = append(bars, bar("RAM (MemTotal)", Green, *total))
	}
	limit := 0.0
	for _, b := range bars {
		limit = max(limit, b.V)
	}
	return template.HTML(chart.HBar("Worst case "+units.Bytes(wc.TotalBytes)+" and its terms", unit, bars, limit)) // built with escaped text only
}
