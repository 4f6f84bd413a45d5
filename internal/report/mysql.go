package report

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/dbmem/dbmem/internal/enginemem"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
)

// mysqlSettingsShown are the MySQL/MariaDB variables the report prints.
var mysqlSettingsShown = []string{
	"innodb_buffer_pool_size", "innodb_log_buffer_size", "key_buffer_size", "query_cache_size",
	"aria_pagecache_buffer_size", "max_connections", "sort_buffer_size", "join_buffer_size",
	"read_buffer_size", "read_rnd_buffer_size", "thread_stack", "tmp_table_size", "max_heap_table_size",
	"performance_schema", "large_pages", "log_bin",
}

// writeMySQL renders one section per MySQL/MariaDB server; nothing when
// there is none (a PostgreSQL host is not told it lacks MySQL).
func writeMySQL(b *strings.Builder, s *snapshot.Snapshot, st style) {
	for _, in := range s.MySQL {
		b.WriteString("\n")
		writeMySQLInstance(b, in, s.Host, st)
	}
}

func writeMySQLInstance(b *strings.Builder, in *mysql.Instance, h linux.Host, st style) {
	version := in.Version
	version = cmp.Or(version, "(version unknown)")
	title := strings.ToUpper(string(in.Flavor)) + " " + version
	port := "port unknown"
	if in.Port > 0 {
		port = fmt.Sprintf("port %d", in.Port)
	}
	fmt.Fprintf(b, "%s  %s  %s  pid %d\n", st.head(inert.Text(title)), inert.Text(units.Or(in.DataDir, "-")), port, in.PID)
	conn := inert.Text(in.Connection)
	if !in.Connected {
		conn = st.warn(conn)
	}
	fmt.Fprintf(b, "  Connection   %s\n", conn)
	writeMySQLSettings(b, in, st)
	fmt.Fprintf(b, "  Buffer pool  %s\n", bufferPoolLine(in, st))
	fmt.Fprintf(b, "  Huge pages   %s\n", hugeMappingsLine(in.Memory.HugeMappings))
	fmt.Fprintf(b, "  Threads      %s\n", threadsLine(in))
	writeWorstCase(b, mysql.ComputeWorstCase(in), h)
	writeHugePlan(b, in, h)
	if in.Cgroup != nil {
		fmt.Fprintf(b, "  Cgroup       %s\n", cgroupLine(in.Cgroup.Memory))
	}
}

func writeMySQLSettings(b *strings.Builder, in *mysql.Instance, st style) {
	var parts []string
	for _, n := range mysqlSettingsShown {
		if v, ok := in.Settings[n]; ok {
			parts = append(parts, n+"="+v.Value+sourceNote(v))
		}
	}
	writeLabeled(b, "Settings", wrapWords(parts, st.listWidth()))
}

// sourceNote marks values that did not come from the server or defaults.
func sourceNote(v mysql.Setting) string {
	if v.Source == mysql.FromServer || v.Source == mysql.FromDefault {
		return ""
	}
	return "(" + string(v.Source) + ")"
}

func bufferPoolLine(in *mysql.Instance, st style) string {
	bp := in.Memory.BufferPool
	if bp == nil {
		return "mapping not found (see gaps)"
	}
	pages := "4 KiB pages"
	if bp.Hugetlb {
		pages = units.Bytes(bp.PageSizeBytes) + " huge pages"
	} else if bp.PageSizeBytes != 4096 {
		pages = units.Bytes(bp.PageSizeBytes) + " pages"
	}
	where := fmt.Sprintf("%d mappings", len(bp.Mappings))
	if len(bp.Mappings) == 1 {
		m := bp.Mappings[0]
		where = fmt.Sprintf("%#x %s", m.Start, mappingKind(m))
	}
	line := fmt.Sprintf("%s mapped at %s in %s; %s resident", units.Bytes(bp.SizeBytes), where, pages, units.Bytes(bp.ResidentBytes))
	if in.LargePages() && !bp.Hugetlb {
		line += "; " + st.bad("large_pages=ON but the buffer pool is NOT in huge pages")
	}
	return line
}

func mappingKind(m mysql.MappingInfo) string {
	switch {
	case m.SysV():
		return "(SysV " + m.Path + ")"
	case m.Path == "":
		return "(anonymous)"
	}
	return "(" + m.Path + ")"
}

func hugeMappingsLine(ms []mysql.MappingInfo) string {
	if len(ms) == 0 {
		return "no mapping in huge pages"
	}
	var sizes []string
	var total uint64
	for _, m := range ms {
		sizes = append(sizes, units.Bytes(m.SizeBytes))
		total += m.SizeBytes
	}
	return fmt.Sprintf("%d mappings in %s pages: %s (%s)", len(ms), units.Bytes(ms[0].PageSizeBytes), strings.Join(sizes, ", "), units.Bytes(total))
}

func threadsLine(in *mysql.Instance) string {
	m := in.Memory
	how := "Pss_Anon"
	if !m.PrivateExact {
		how = "RssAnon"
	}
	threads := units.Unknown
	if m.Threads > 0 {
		threads = fmt.Sprint(m.Threads)
	}
	s := fmt.Sprintf("%s threads in one process; private %s (%s), %s outside the buffer pool = ~%s per thread "+
		"(estimate: other global caches included); page tables %s", threads, units.OptBytes(m.PrivateBytes), how,
		units.OptBytes(m.OutsidePoolBytes), units.OptBytes(m.PerThreadBytes), units.OptBytes(m.PageTablesBytes))
	if mu, ok := in.StatusBytes("memory_used"); ok {
		s += fmt.Sprintf("; Memory_used %s (server's count)", units.Bytes(mu))
	}
	return s
}

func writeWorstCase(b *strings.Builder, wc enginemem.WorstCase, h linux.Host) {
	ps := "unknown"
	if l, _ := wc.Line("performance_schema"); wc.Measured(l.Name) {
		ps = units.Bytes(l.Bytes)
	}
	fmt.Fprintf(b, "  Worst case   %s = global %s + %d max_connections x %s per thread + performance_schema %s + page tables %s%s\n",
		units.Bytes(wc.TotalBytes), units.Bytes(wc.Sum(enginemem.Global, enginemem.InHugePages)), wc.MaxConnections,
		units.Bytes(wc.Sum(enginemem.PerConnection)), ps, units.Bytes(wc.PageTablesBytes),
		ofText(&wc.TotalBytes, h.Meminfo.MemTotalBytes, " of RAM"))
	fmt.Fprintf(b, "               global: %s\n", linesText(wc.Lines, enginemem.Global, enginemem.InHugePages))
	fmt.Fprintf(b, "               per thread: %s\n", linesText(wc.PerConnection, enginemem.PerConnection))
}

func linesText(ls []enginemem.Line, scopes ...enginemem.Scope) string {
	var parts []string
	for _, l := range ls {
		if slices.Contains(scopes, l.Scope) {
			parts = append(parts, l.Name+" "+units.Bytes(l.Bytes))
		}
	}
	return strings.Join(parts, ", ")
}

func writeHugePlan(b *strings.Builder, in *mysql.Instance, h linux.Host) {
	page, ok := h.DefaultPageSize()
	if !ok {
		fmt.Fprintf(b, "  Huge plan    unknown: the default huge page size is not known (no Hugepagesize line in /proc/meminfo)\n")
		return
	}
	p := mysql.PlanHugePages(in, page, uint64(os.Getpagesize()))
	want := "large_pages=ON would need"
	if in.LargePages() {
		want = "large_pages=ON needs"
	}
	fmt.Fprintf(b, "  Huge plan    %s %d pages of %s (%s) via %s (%s)\n", want, p.Pages, units.Bytes(page), units.Bytes(p.Bytes()), p.API, p.APIFrom)
	if sv := p.SysV; sv != nil {
		group := "unknown"
		if sv.ShmGroup != nil {
			group = fmt.Sprint(*sv.ShmGroup)
		}
		fmt.Fprintf(b, "               SysV: vm.hugetlb_shm_group=%s, LimitMEMLOCK>=%d, kernel.shmmax>=%d, kernel.shmall>=%d\n",
			group, sv.MemlockBytes, sv.ShmMaxBytes, sv.ShmAllPages)
	}
}
