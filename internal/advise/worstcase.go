package advise

import (
	"fmt"
	"github.com/dbmem/dbmem/internal/budget"
	"slices"

	"github.com/dbmem/dbmem/internal/enginemem"
	"github.com/dbmem/dbmem/internal/units"
)

// Constants of the worst-case arithmetic, stated in docs/check-plan.md.
const (
	// DefaultNodesPerQuery is how many sort or hash nodes each query is
	// assumed to run at once (each may use work_mem x hash_mem_multiplier).
	DefaultNodesPerQuery = 2
	// JITBytesPerBackend is what JIT compilation added to one backend:
	// the budget's measured figure (budget.JITCostBytes, 24.8 MiB on
	// PostgreSQL 15, TestJITCost in internal/plan), one constant for both.
	JITBytesPerBackend = budget.JITCostBytes
	// DefaultBackendBytes is one idle backend's private memory (Pss_Anon)
	// when none can be measured (measured 1.2-1.3 MiB on PostgreSQL 15).
	DefaultBackendBytes = 3 * MiB / 2
	// AuxProcesses counts the background processes every PostgreSQL
	// instance runs (checkpointer, background writer, walwriter,
	// autovacuum launcher, logical replication launcher).
	AuxProcesses = 5
	// vacuumMemCap: autovacuum used at most 1 GB for dead tuples before 17.
	vacuumMemCap = GiB
)

// Workload is what bounds an instance's private memory: its settings, and
// the measured cost of an idle backend.
type Workload struct {
	MaxConnections     int     `json:"max_connections"`
	WorkMemBytes       uint64  `json:"work_mem_bytes"`
	HashMemMultiplier  float64 `json:"hash_mem_multiplier"`
	NodesPerQuery      int     `json:"nodes_per_query"`
	ParallelWorkers    int     `json:"max_parallel_workers"`
	AutovacuumWorkers  int     `json:"autovacuum_max_workers"`
	AutovacuumMemBytes uint64  `json:"autovacuum_mem_bytes"` // per worker, as the server uses it
	TempBuffersBytes   uint64  `json:"temp_buffers_bytes"`
	JIT                bool    `json:"jit"`
	BackendBaseBytes   uint64  `json:"backend_base_bytes"`
	BaseMeasured       bool    `json:"backend_base_measured"`
	SharedBytes        uint64  `json:"shared_bytes"`
	SharedPageBytes    uint64  `json:"shared_page_bytes"`
	// Unknown names the settings (and UnknownPageSize) that were not
	// read: their fields are 0, and the worst-case lines that need them
	// are skipped (WorstCase.Skipped), never computed on a default.
	Unknown []string `json:"unknown,omitempty"`
	// SharedFromSetting says SharedBytes is shared_buffers: the segment,
	// somewhat larger, was not read.
	SharedFromSetting bool `json:"shared_from_setting,omitempty"`
}

// UnknownPageSize stands in Workload.Unknown for the page size of the
// shared memory: neither the mapping (the postmaster's smaps) nor
// huge_pages=off said it.
const UnknownPageSize = "page size of the main shared memory (the postmaster's smaps)"

// WorstCaseLine is one term of the worst case (enginemem's).
type WorstCaseLine = enginemem.Line

// WorstCase is the memory an instance can take when every connection runs
// its most memory-hungry query at once: enginemem's, one shape for every
// engine.
type WorstCase = enginemem.WorstCase

// SkippedLine is a worst-case line that was not computed (enginemem's).
type SkippedLine = enginemem.SkippedLine

// processes counts every process that may touch shared memory.
func (w Workload) processes() int {
	return w.MaxConnections + w.ParallelWorkers + w.AutovacuumWorkers + AuxProcesses
}

// WorstCase adds up the terms. A line whose inputs were not read is
// skipped (WorstCase.Skipped), never computed on a default.
func (w Workload) WorstCase() WorstCase {
	nodes := w.NodesPerQuery
	if nodes < 1 {
		nodes = DefaultNodesPerQuery
	}
	hm := w.HashMemMultiplier
	if hm < 1 {
		hm = 1
	}
	perQuery := uint64(float64(w.WorkMemBytes) * float64(nodes) * hm)
	wc := &WorstCase{}
	add := w.adder(wc)
	add("sorts and hashes", fmt.Sprintf("%d max_connections x %s work_mem x %d nodes x %g hash_mem_multiplier",
		w.MaxConnections, units.Bytes(w.WorkMemBytes), nodes, hm), uint64(w.MaxConnections)*perQuery,
		"max_connections", "work_mem", "hash_mem_multiplier")
	add("parallel workers", fmt.Sprintf("%d max_parallel_workers x %s work_mem x %d nodes x %g",
		w.ParallelWorkers, units.Bytes(w.WorkMemBytes), nodes, hm), uint64(w.ParallelWorkers)*perQuery,
		"max_parallel_workers", "work_mem", "hash_mem_multiplier")
	add("autovacuum", fmt.Sprintf("%d autovacuum_max_workers x %s", w.AutovacuumWorkers, units.Bytes(w.AutovacuumMemBytes)),
		uint64(w.AutovacuumWorkers)*w.AutovacuumMemBytes, "autovacuum_max_workers", "maintenance_work_mem")
	add("temp_buffers", fmt.Sprintf("%d max_connections x %s temp_buffers", w.MaxConnections, units.Bytes(w.TempBuffersBytes)),
		uint64(w.MaxConnections)*w.TempBuffersBytes, "max_connections", "temp_buffers")
	if w.JIT || w.unknown("jit") {
		add("JIT", fmt.Sprintf("%d max_connections x %s (measured per backend that JIT-compiled)", w.MaxConnections, units.Bytes(JITBytesPerBackend)),
			uint64(w.MaxConnections)*JITBytesPerBackend, "jit", "max_connections")
	}
	how := "default"
	if w.BaseMeasured {
		how = "median measured"
	}
	procs := []string{"max_connections", "max_parallel_workers", "autovacuum_max_workers"}
	add("backend baseline", fmt.Sprintf("%d processes x %s (%s Pss_Anon of a backend)", w.processes(), units.Bytes(w.BackendBaseBytes), how),
		uint64(w.processes())*w.BackendBaseBytes, procs...)
	for _, l := range wc.Lines {
		wc.PrivateBytes += l.Bytes
	}
	w.sharedLines(add, wc)
	wc.TotalBytes = wc.PrivateBytes + wc.PageTablesBytes + wc.SharedBytes
	return *wc
}

// sharedLines adds page tables and shared memory.
func (w Workload) sharedLines(add func(name, formula string, b uint64, needs ...string) bool, wc *WorstCase) {
	shared := "shared_buffers" // the segment stands in for it when the mapping was read
	pt := PageTableBytes(w.processes(), w.SharedBytes, w.SharedPageBytes)
	if add("page tables", fmt.Sprintf("%d processes x %s shared / %s pages x 8 B", w.processes(), units.Bytes(w.SharedBytes), units.Bytes(w.SharedPageBytes)),
		pt, "max_connections", "max_parallel_workers", "autovacuum_max_workers", shared, UnknownPageSize) {
		wc.PageTablesBytes = pt
	}
	what := "main shared memory segment"
	if w.SharedFromSetting {
		what = "shared_buffers (the main segment, somewhat larger, was not read)"
	}
	if add("shared memory", what, w.SharedBytes, shared) {
		wc.SharedBytes = w.SharedBytes
	}
}

// adder returns the function that adds a line, or records it as skipped
// when one of the inputs it needs is unknown; it reports whether it added.
func (w Workload) adder(wc *WorstCase) func(name, formula string, b uint64, needs ...string) bool {
	return func(name, formula string, b uint64, needs ...string) bool {
		var missing []string
		for _, n := range needs {
			if w.unknown(n) {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			wc.Skipped = append(wc.Skipped, SkippedLine{Name: name, Missing: missing})
			return false
		}
		wc.Lines = append(wc.Lines, WorstCaseLine{Name: name, Formula: formula, Bytes: b})
		return true
	}
}

// unknown says whether an input was not read. The shared memory and its
// page size count as known once set (a plan sets them from the pool it
// plans).
func (w Workload) unknown(name string) bool {
	switch {
	case name == UnknownPageSize && w.SharedPageBytes > 0, name == "shared_buffers" && w.SharedBytes > 0:
		return false
	}
	return slices.Contains(w.Unknown, name)
}

// learned removes settings from Unknown once a plan gives their values.
func (w *Workload) learned(names ...string) {
	w.Unknown = slices.DeleteFunc(slices.Clone(w.Unknown), func(u string) bool { return slices.Contains(names, u) })
}
