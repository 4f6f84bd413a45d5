package budget

// PGInput is one PostgreSQL instance to budget.
type PGInput struct {
	Subject string `json:"subject"`
	Major   int    `json:"major"`
	Host    Host   `json:"host"`
	// Settings are the instance's settings as planned: what it runs with
	// (live), or the version's defaults with the what-if changes.
	Settings PGSettings `json:"settings"`
	// Asked names the settings the user gave (what-if flags): they are
	// kept as given.
	Asked map[string]bool `json:"asked,omitempty"`
	// Measured is what the running server showed; nil for a what-if.
	Measured *Measured `json:"measured,omitempty"`
	// Pools is what the connection poolers on the host can open to this
	// instance (internal/pooler); nil when they were not looked for.
	Pools *Pools `json:"pools,omitempty"`
	// ActiveSessions, when positive, is the concurrency to budget for
	// (what-if --active-sessions), instead of measuring or assuming it.
	ActiveSessions int `json:"active_sessions,omitempty"`
	// Profile is the workload the peers are computed for (web, oltp, dw,
	// mixed, desktop: PGTune's names); "" is PGTune's default, web.
	Profile string `json:"profile,omitempty"`
	// NodesPerQuery is how many sort or hash nodes an active query runs at
	// once (0: DefaultNodesPerQuery).
	NodesPerQuery int `json:"nodes_per_query,omitempty"`
}

// PGSettings are the settings that decide PostgreSQL's private memory.
type PGSettings struct {
	MaxConnections          int     `json:"max_connections"`
	SuperuserReserved       int     `json:"superuser_reserved_connections"`
	SharedBuffersBytes      uint64  `json:"shared_buffers_bytes"`
	WorkMemBytes            uint64  `json:"work_mem_bytes"`
	HashMemMultiplier       float64 `json:"hash_mem_multiplier"`
	MaintenanceWorkMemBytes uint64  `json:"maintenance_work_mem_bytes"`
	// AutovacuumWorkMemBytes is autovacuum_work_mem; nil when -1 (it uses
	// maintenance_work_mem).
	AutovacuumWorkMemBytes      *uint64 `json:"autovacuum_work_mem_bytes,omitempty"`
	AutovacuumMaxWorkers        int     `json:"autovacuum_max_workers"`
	MaxWorkerProcesses          int     `json:"max_worker_processes"`
	MaxParallelWorkers          int     `json:"max_parallel_workers"`
	MaxParallelWorkersPerGather int     `json:"max_parallel_workers_per_gather"`
	TempBuffersBytes            uint64  `json:"temp_buffers_bytes"`
	JIT                         bool    `json:"jit"`
	// IOWorkers is io_workers (PostgreSQL 18, io_method=worker): processes
	// of their own.
	IOWorkers int `json:"io_workers,omitempty"`
}

// Measured is what the running server and its processes showed.
type Measured struct {
	// Backends, BaselineMedianBytes and BaselineP95Bytes are the client
	// backends' private cost (Pss_Anon + swap, page tables apart; the
	// measured JIT cost taken out of the backends that compiled).
	Backends            int    `json:"backends"`
	BaselineMedianBytes uint64 `json:"baseline_median_bytes"`
	BaselineP95Bytes    uint64 `json:"baseline_p95_bytes"`
	// PageTablesP95Bytes is the 95th percentile of the backends' VmPTE.
	PageTablesP95Bytes uint64        `json:"page_tables_p95_bytes"`
	Roles              []RoleMeasure `json:"roles,omitempty"`
	// ActiveNow is the client backends running a query when sampled
	// (dbmem's own session left out); ActiveFrom says when and how.
	ActiveNow  int    `json:"active_now"`
	ActiveFrom string `json:"active_from"`
	// HistoryPeakConnections is the most client backends `dbmem watch
	// --record` saw (nil: no history); HistoryFrom names the file and span.
	HistoryPeakConnections *int   `json:"history_peak_connections,omitempty"`
	HistoryFrom            string `json:"history_from,omitempty"`
	// HistoryPeakActive is the most active sessions (pg_stat_activity
	// state active) `dbmem watch --record` saw at once; nil: none recorded.
	HistoryPeakActive *int   `json:"history_peak_active,omitempty"`
	HistoryActiveFrom string `json:"history_active_from,omitempty"`
	ParallelSeen      int    `json:"parallel_seen"`
	AutovacuumSeen    int    `json:"autovacuum_seen"`
	// JIT is JIT's measured cost; nil when no backend had compiled.
	JIT *JITMeasure `json:"jit,omitempty"`
	// JITInBaseline is how many backends had compiled while JIT's cost
	// could not be measured apart (every backend had compiled): their
	// baseline includes it, and the JIT line does not count them again.
	JITInBaseline int `json:"jit_in_baseline,omitempty"`
	// Spills are the largest spills seen, per role.
	Spills []Spill `json:"spills,omitempty"`
	// TempBytes and TempFiles are pg_stat_database's totals (nil: not
	// read); TempSince says since when.
	TempBytes *uint64 `json:"temp_bytes,omitempty"`
	TempFiles *uint64 `json:"temp_files,omitempty"`
	TempSince string  `json:"temp_since,omitempty"`
	Gaps      []Gap   `json:"gaps,omitempty"`
}

// RoleMeasure is one role's client backends and its own settings.
type RoleMeasure struct {
	Name        string `json:"name"`
	Backends    int    `json:"backends"`
	MedianBytes uint64 `json:"median_bytes"`
	P95Bytes    uint64 `json:"p95_bytes"`
	Active      int    `json:"active"`
	// WorkMem is the role's own work_mem (ALTER ROLE ... SET), "" when
	// none; WorkMemBytes is it in bytes.
	WorkMem      string `json:"work_mem,omitempty"`
	WorkMemBytes uint64 `json:"work_mem_bytes,omitempty"`
	// JITCompiled is how many of its backends had JIT-compiled; their
	// measured JIT cost is taken out of MedianBytes and P95Bytes (JIT is
	// counted once, in the budget's JIT line).
	JITCompiled int `json:"jit_compiled,omitempty"`
}

// JITMeasure is what JIT compilation added to the backends that did it.
type JITMeasure struct {
	Compiled  int    `json:"compiled"`
	CostBytes uint64 `json:"cost_bytes"`
	Formula   string `json:"formula"`
}

// Spill is the largest spill seen for a role: a temporary file in the
// server log, or the temp blocks one call wrote (pg_stat_statements).
type Spill struct {
	Role   string `json:"role"`
	Bytes  uint64 `json:"bytes"`
	Source string `json:"source"`
}

// Pools is what the connection poolers on the host can open to one
// PostgreSQL instance (internal/pooler).
type Pools struct {
	// MaxServerConnections is the most server connections they can open
	// at once; Known is false when a pooler's configuration could not be
	// read whole (then it is a lower bound).
	MaxServerConnections int        `json:"max_server_connections"`
	Known                bool       `json:"known"`
	Formula              string     `json:"formula"`
	Evidence             []Evidence `json:"evidence,omitempty"`
}
