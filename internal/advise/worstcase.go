package advise

import (
	"fmt"
	"github.com/dbmem/dbmem/internal/budget"

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
}

// WorstCaseLine is one term of the worst case.
type WorstCaseLine struct {
	Name    string `json:"name"`
	Formula string `json:"formula"`
	Bytes   uint64 `json:"bytes"`
}

// WorstCase is the memory an instance can take when every connection runs
// its most memory-hungry query at once. Nothing in PostgreSQL caps it.
type WorstCase struct {
	Lines []WorstCaseLine `json:"lines"`
	// PrivateBytes is every line but shared memory and page tables: what
	// counts in Committed_AS.
	PrivateBytes    uint64 `json:"private_bytes"`
	PageTablesBytes uint64 `json:"page_tables_bytes"`
	SharedBytes     uint64 `json:"shared_bytes"`
	TotalBytes      uint64 `json:"total_bytes"`
}

// processes counts every process that may touch shared memory.
func (w Workload) processes() int {
	return w.MaxConnections + w.ParallelWorkers + w.AutovacuumWorkers + AuxProcesses
}

// WorstCase adds up the terms.
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
	var wc WorstCase
	add := func(name, formula string, b uint64) {
		wc.Lines = append(wc.Lines, WorstCaseLine{Name: name, Formula: formula, Bytes: b})
	}
	add("sorts and hashes", fmt.Sprintf("%d max_connections x %s work_mem x %d nodes x %g hash_mem_multiplier",
		w.MaxConnections, units.Bytes(w.WorkMemBytes), nodes, hm), uint64(w.MaxConnections)*perQuery)
	add("parallel workers", fmt.Sprintf("%d max_parallel_workers x %s work_mem x %d nodes x %g",
		w.ParallelWorkers, units.Bytes(w.WorkMemBytes), nodes, hm), uint64(w.ParallelWorkers)*perQuery)
	add("autovacuum", fmt.Sprintf("%d autovacuum_max_workers x %s", w.AutovacuumWorkers, units.Bytes(w.AutovacuumMemBytes)),
		uint64(w.AutovacuumWorkers)*w.AutovacuumMemBytes)
	add("temp_buffers", fmt.Sprintf("%d max_connections x %s temp_buffers", w.MaxConnections, units.Bytes(w.TempBuffersBytes)),
		uint64(w.MaxConnections)*w.TempBuffersBytes)
	if w.JIT {
		add("JIT", fmt.Sprintf("%d max_connections x %s (measured per backend that JIT-compiled)", w.MaxConnections, units.Bytes(JITBytesPerBackend)),
			uint64(w.MaxConnections)*JITBytesPerBackend)
	}
	how := "default"
	if w.BaseMeasured {
		how = "median measured"
	}
	add("backend baseline", fmt.Sprintf("%d processes x %s (%s Pss_Anon of a backend)", w.processes(), units.Bytes(w.BackendBaseBytes), how),
		uint64(w.processes())*w.BackendBaseBytes)
	for _, l := range wc.Lines {
		wc.PrivateBytes += l.Bytes
	}
	wc.PageTablesBytes = PageTableBytes(w.processes(), w.SharedBytes, w.SharedPageBytes)
	add("page tables", fmt.Sprintf("%d processes x %s shared / %s pages x 8 B", w.processes(), units.Bytes(w.SharedBytes), units.Bytes(w.SharedPageBytes)),
		wc.PageTablesBytes)
	wc.SharedBytes = w.SharedBytes
	add("shared memory", "main shared memory segment", w.SharedBytes)
	wc.TotalBytes = wc.PrivateBytes + wc.PageTablesBytes + wc.SharedBytes
	return wc
}
