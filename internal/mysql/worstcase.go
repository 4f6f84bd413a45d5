package mysql

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// Line is one term of a calculation, with the arithmetic that produced it.
type Line struct {
	Name    string `json:"name"`
	Formula string `json:"formula"`
	Bytes   uint64 `json:"bytes"`
}

// WorstCase is the memory the settings allow when every connection runs
// its hungriest query at once: global buffers + max_connections x
// (per-thread buffers + one in-memory temporary table) + performance_schema.
// Nothing in the server caps it.
type WorstCase struct {
	Global         []Line `json:"global"`
	GlobalBytes    uint64 `json:"global_bytes"`
	PerThread      []Line `json:"per_thread"`
	PerThreadBytes uint64 `json:"per_thread_bytes"`
	MaxConnections int    `json:"max_connections"`
	Connections    Line   `json:"connections"`
	PerfSchema     Line   `json:"perf_schema"`
	// PerfSchemaKnown is false when performance_schema is ON but its
	// memory was not measured (no connection).
	PerfSchemaKnown bool   `json:"perf_schema_known"`
	TotalBytes      uint64 `json:"total_bytes"`
}

// globalBuffers are allocated once per server; perThreadBuffers per
// connection that needs them (their full size in the worst case).
var (
	globalBuffers = []string{"innodb_log_buffer_size", "key_buffer_size", "query_cache_size", "aria_pagecache_buffer_size"}
	threadBuffers = []string{"sort_buffer_size", "join_buffer_size", "read_buffer_size", "read_rnd_buffer_size",
		"thread_stack", "net_buffer_length"}
	binlogBuffers = []string{"binlog_cache_size", "binlog_stmt_cache_size"}
)

// ComputeWorstCase adds up the terms from the instance's settings. The
// buffer pool counts as its measured mapping when that is larger than
// innodb_buffer_pool_size (the pool's control blocks sit beside it).
func ComputeWorstCase(in *Instance) WorstCase {
	s := in.Settings
	var wc WorstCase
	wc.Global = append(wc.Global, bufferPoolLine(in))
	for _, name := range globalBuffers {
		if v, ok := s.Bytes(name); ok && v > 0 {
			wc.Global = append(wc.Global, Line{Name: name, Formula: name, Bytes: v})
		}
	}
	names := threadBuffers
	if on, _ := s.Bool("log_bin"); on {
		names = append(names, binlogBuffers...)
	}
	for _, name := range names {
		if v, ok := s.Bytes(name); ok && v > 0 {
			wc.PerThread = append(wc.PerThread, Line{Name: name, Formula: name, Bytes: v})
		}
	}
	wc.PerThread = append(wc.PerThread, tmpTableLine(s))
	wc.GlobalBytes, wc.PerThreadBytes = sum(wc.Global), sum(wc.PerThread)
	mc, _ := s.Int("max_connections")
	wc.MaxConnections = int(mc)
	wc.Connections = Line{Name: "connections", Bytes: uint64(mc) * wc.PerThreadBytes,
		Formula: fmt.Sprintf("%d max_connections x %s per thread", mc, units.Bytes(wc.PerThreadBytes))}
	wc.PerfSchema, wc.PerfSchemaKnown = perfSchemaLine(in)
	wc.TotalBytes = wc.GlobalBytes + wc.Connections.Bytes + wc.PerfSchema.Bytes
	return wc
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

func sum(ls []Line) uint64 {
	var t uint64
	for _, l := range ls {
		t += l.Bytes
	}
	return t
}
