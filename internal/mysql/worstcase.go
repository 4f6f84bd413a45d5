package mysql

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/enginemem"
	"github.com/dbmem/dbmem/internal/units"
)

// Line is one term of a calculation (enginemem's, one type for every
// engine).
type Line = enginemem.Line

// globalBuffers are allocated once per server; perThreadBuffers per
// connection that needs them (their full size in the worst case).
var (
	globalBuffers = []string{"innodb_log_buffer_size", "key_buffer_size", "query_cache_size", "aria_pagecache_buffer_size"}
	threadBuffers = []string{"sort_buffer_size", "join_buffer_size", "read_buffer_size", "read_rnd_buffer_size",
		"thread_stack", "net_buffer_length"}
	binlogBuffers = []string{"binlog_cache_size", "binlog_stmt_cache_size"}
)

// ComputeWorstCase is the server's worst case as it runs now: its
// large-page buffers in huge pages when its buffer pool is (measured), else
// in base pages.
func ComputeWorstCase(in *Instance) enginemem.WorstCase {
	if bp := in.Memory.BufferPool; bp != nil && bp.Hugetlb {
		return WorstCaseIn(in, bp.PageSizeBytes)
	}
	return WorstCaseIn(in, 0)
}

// WorstCaseIn is the memory the settings allow when every connection runs
// its hungriest query at once: global buffers + max_connections x
// (per-thread buffers + one in-memory temporary table) + performance_schema
// + the page tables of the large-page buffers (one process maps them
// once). With hugePage > 0 the large-page buffers (LargePageVariables and
// the buffer pool) are in huge pages of that size: shared, not private.
// The buffer pool counts as its measured mapping when that is larger than
// innodb_buffer_pool_size (the pool's control blocks sit beside it).
// Nothing in the server caps it.
func WorstCaseIn(in *Instance, hugePage uint64) enginemem.WorstCase {
	s := in.Settings
	var wc enginemem.WorstCase
	large := largePageNames(in.Flavor)
	var buffers uint64
	addGlobal := func(l Line) {
		l.Scope = enginemem.Global
		if large[l.Formula] || l.Name == "innodb_buffer_pool_size" {
			buffers += l.Bytes
			if hugePage > 0 {
				l.Scope = enginemem.InHugePages
			}
		}
		wc.Lines = append(wc.Lines, l)
	}
	addGlobal(bufferPoolLine(in))
	for _, name := range globalBuffers {
		if v, ok := s.Bytes(name); ok && v > 0 {
			addGlobal(Line{Name: name, Formula: name, Bytes: v})
		}
	}
	wc.PerConnection = perThreadLines(s)
	per := wc.Sum(enginemem.PerConnection)
	mc, _ := s.Int("max_connections")
	wc.MaxConnections = int(mc)
	wc.Lines = append(wc.Lines, Line{Name: "connections", Bytes: uint64(mc) * per,
		Formula: fmt.Sprintf("%d max_connections x %s per thread", mc, units.Bytes(per))})
	ps, known := perfSchemaLine(in)
	if !known {
		wc.Unmeasured = append(wc.Unmeasured, ps.Name)
	}
	wc.Lines = append(wc.Lines, ps)
	for _, l := range wc.Lines {
		if l.Scope == enginemem.InHugePages {
			wc.SharedBytes += l.Bytes
		} else {
			wc.PrivateBytes += l.Bytes
		}
	}
	page := max(hugePage, 4096)
	wc.PageTablesBytes = enginemem.PageTableBytes(1, buffers, page)
	wc.Lines = append(wc.Lines, Line{Name: "page tables", Bytes: wc.PageTablesBytes,
		Formula: fmt.Sprintf("1 process x %s of large-page buffers / %s pages x 8 B", units.Bytes(buffers), units.Bytes(page))})
	wc.TotalBytes = wc.PrivateBytes + wc.PageTablesBytes + wc.SharedBytes
	return wc
}

// perThreadLines are what one connection may allocate: its buffers, the
// binary log caches when log_bin is on, an in-memory temporary table.
func perThreadLines(s Settings) []Line {
	names := threadBuffers
	if on, _ := s.Bool("log_bin"); on {
		names = append(names, binlogBuffers...)
	}
	var out []Line
	for _, name := range names {
		if v, ok := s.Bytes(name); ok && v > 0 {
			out = append(out, Line{Name: name, Formula: name, Bytes: v, Scope: enginemem.PerConnection})
		}
	}
	t := tmpTableLine(s)
	t.Scope = enginemem.PerConnection
	return append(out, t)
}

// largePageNames are the variables a server of this flavor allocates with
// its large-page allocator (LargePageVariables).
func largePageNames(f Flavor) map[string]bool {
	out := map[string]bool{"innodb_buffer_pool_size": true}
	for _, l := range LargePageVariables(f) {
		out[l.Formula] = true
	}
	return out
}

func bufferPoolLine(in *Instance) Line {
	v, _ := in.Settings.Bytes("innodb_buffer_pool_size")
	l := Line{Name: "innodb_buffer_pool_size", Formula: "innodb_buffer_pool_size", Bytes: v}
	if bp := in.Memory.BufferPool; bp != nil && bp.SizeBytes > v {
		l.Bytes = bp.SizeBytes
		l.Formula = fmt.Sprintf("measured buffer pool mapping (innodb_buffer_pool_size %s + control blocks)", units.Bytes(v))
	}
	return l
}

// tmpTableLine: an implicit in-memory temporary table may grow to
// min(tmp_table_size, max_heap_table_size) before it goes to disk.
func tmpTableLine(s Settings) Line {
	t, _ := s.Bytes("tmp_table_size")
	h, _ := s.Bytes("max_heap_table_size")
	return Line{Name: "in-memory temporary table", Formula: "min(tmp_table_size, max_heap_table_size)", Bytes: min(t, h)}
}

// perfSchemaLine is performance_schema's own memory, from its memory
// summary (the memory/performance_schema/ events) when measured.
func perfSchemaLine(in *Instance) (Line, bool) {
	on, _ := in.Settings.Bool("performance_schema")
	if !on {
		return Line{Name: "performance_schema", Formula: "performance_schema=OFF"}, true
	}
	var total uint64
	found := false
	for _, e := range in.PerfSchemaMemory {
		if strings.HasPrefix(e.Event, "memory/performance_schema/") && e.Bytes > 0 {
			total += uint64(e.Bytes)
			found = true
		}
	}
	if !found {
		return Line{Name: "performance_schema", Formula: "ON, not measured (needs a connection)"}, false
	}
	return Line{Name: "performance_schema", Formula: "sum of memory/performance_schema/% in memory_summary_global_by_event_name (top events)", Bytes: total}, true
}
