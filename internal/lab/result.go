package lab

import (
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
)

// Schema versions the JSON form of a Result. Bump it when a field changes
// meaning or disappears; adding fields keeps the version.
const Schema = "dbmem.lab/v1"

// Result is everything one lab run measured.
type Result struct {
	Schema     string        `json:"schema"`
	StartedAt  time.Time     `json:"started_at"`
	FinishedAt time.Time     `json:"finished_at"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	Host       HostInfo      `json:"host"`
	Config     Config        `json:"config"`
	// TableBytes is the size of pgbench_accounts on disk: what each
	// connection reads through shared_buffers.
	TableBytes uint64 `json:"table_bytes"`
	// Pool is the huge page pool change made for huge_pages=on (nil when
	// only huge_pages=off ran).
	Pool  *PoolChange   `json:"huge_page_pool,omitempty"`
	Modes []*ModeResult `json:"modes"`
	Bench *Bench        `json:"bench,omitempty"`
	// Restored lists every change the lab made to the host and whether it
	// was undone.
	Restored []HostChange `json:"restored"`
	Notes    []string     `json:"notes,omitempty"`
	// Steps are the durations of the lab's phases, for the time budget.
	Steps []StepTime `json:"steps"`
}

// HostInfo describes the machine the lab ran on.
type HostInfo struct {
	Hostname      string `json:"hostname"`
	KernelRelease string `json:"kernel_release"`
	CPUs          int    `json:"cpus"`
	MemTotalBytes uint64 `json:"mem_total_bytes"`
	// MemAvailableBytes is MemAvailable when the lab started.
	MemAvailableBytes uint64 `json:"mem_available_bytes"`
	PageSizeBytes     uint64 `json:"page_size_bytes"`
	HugePageBytes     uint64 `json:"huge_page_bytes"`
	THP               string `json:"thp_enabled"`
	PGVersion         string `json:"pg_version"`
}

// PoolChange is the change of vm.nr_hugepages for the huge_pages=on runs.
type PoolChange struct {
	// Needed is `postgres -C shared_memory_size_in_huge_pages` of the lab's
	// cluster: the pages `dbmem plan` would reserve for it.
	Needed int    `json:"needed_pages"`
	Source string `json:"source"`
	Before int    `json:"before"`
	Set    int    `json:"set"`
	After  int    `json:"after"`
	// TopUp are pages added back after another program took some of the
	// lab's (a server started elsewhere with huge_pages=try).
	TopUp int `json:"top_up,omitempty"`
}

// ModeResult is the connection experiment with one huge_pages setting.
type ModeResult struct {
	HugePages Mode `json:"huge_pages"`
	// Readings are the host's memory at each stage, after it settled.
	Readings []Reading `json:"readings"`
	// Steps are page tables and memory while the connections open.
	Steps []ConnStep `json:"steps"`
	// Readers are the N connections, measured when all were open.
	Readers []Backend `json:"readers"`
	Cost    Cost      `json:"cost"`
}

// Reading is the host's memory at one stage of a run.
type Reading struct {
	Stage             string    `json:"stage"`
	At                time.Time `json:"at"`
	Connections       int       `json:"connections"`
	MemAvailableBytes uint64    `json:"mem_available_bytes"`
	// PCPFreeBytes are the free pages cached on the per-CPU lists
	// (/proc/zoneinfo pagesets): free, but not in MemFree or MemAvailable.
	PCPFreeBytes uint64 `json:"pcp_free_bytes"`
	// UsedBytes is used memory as free(1) shows it, MemTotal - MemFree -
	// Buffers - Cached - SReclaimable, less PCPFreeBytes.
	UsedBytes        uint64 `json:"used_bytes"`
	PageTablesBytes  uint64 `json:"page_tables_bytes"`
	CommittedASBytes uint64 `json:"committed_as_bytes"`
	ShmemBytes       uint64 `json:"shmem_bytes"`
	KernelStackBytes uint64 `json:"kernel_stack_bytes"`
	SUnreclaimBytes  uint64 `json:"sunreclaim_bytes"`
	HugePagesTotal   uint64 `json:"huge_pages_total"`
	HugePagesFree    uint64 `json:"huge_pages_free"`
	HugePagesRsvd    uint64 `json:"huge_pages_rsvd"`
	HugePagesSurp    uint64 `json:"huge_pages_surp"`
	// ClientBytes is the lab process's own RssAnon + VmPTE: it holds the
	// client ends of the connections, so its growth is not the server's.
	ClientBytes uint64      `json:"client_bytes"`
	Settle      Settle      `json:"settle"`
	Procs       *ProcSample `json:"procs,omitempty"`
}

// Settle says how the reading was taken: MemAvailable was read every
// interval until it moved less than the threshold over the window.
type Settle struct {
	Waited  time.Duration `json:"waited_ns"`
	Settled bool          `json:"settled"`
	// SpreadBytes is max - min of MemAvailable + PCPFreeBytes over the
	// last window: the noise of this reading.
	SpreadBytes uint64 `json:"spread_bytes"`
}

// ProcSample is the cluster's processes at one stage.
type ProcSample struct {
	Postmaster   Backend `json:"postmaster"`
	Checkpointer Backend `json:"checkpointer"`
	// Clients sums the client backends (the lab's own control connection
	// excluded).
	Clients Agg `json:"clients"`
	// All sums every process of the cluster, postmaster included.
	All Agg `json:"all"`
}

// Backend is one PostgreSQL process's memory.
type Backend struct {
	PID           int    `json:"pid"`
	Role          string `json:"role"`
	RSSBytes      uint64 `json:"rss_bytes"`
	RssAnonBytes  uint64 `json:"rss_anon_bytes"`
	RssShmemBytes uint64 `json:"rss_shmem_bytes"`
	VmPTEBytes    uint64 `json:"vm_pte_bytes"`
	VmSwapBytes   uint64 `json:"vm_swap_bytes"`
	HugetlbBytes  uint64 `json:"hugetlb_bytes"`
	// Pss fields are set when smaps_rollup was read (HasPss).
	HasPss        bool   `json:"has_pss"`
	PssBytes      uint64 `json:"pss_bytes"`
	PssAnonBytes  uint64 `json:"pss_anon_bytes"`
	PssShmemBytes uint64 `json:"pss_shmem_bytes"`
	OOMScore      int    `json:"oom_score"`
	OOMScoreAdj   int    `json:"oom_score_adj"`
	MinFlt        uint64 `json:"min_flt"`
	MajFlt        uint64 `json:"maj_flt"`
	// Readers only: page tables and faults added by reading the table.
	ScanPTEBytes uint64        `json:"scan_pte_bytes,omitempty"`
	ScanMinFlt   uint64        `json:"scan_min_flt,omitempty"`
	ScanTime     time.Duration `json:"scan_ns,omitempty"`
}

// Agg sums processes.
type Agg struct {
	Count         int    `json:"count"`
	RSSBytes      uint64 `json:"rss_bytes"`
	RssShmemBytes uint64 `json:"rss_shmem_bytes"`
	VmPTEBytes    uint64 `json:"vm_pte_bytes"`
	HugetlbBytes  uint64 `json:"hugetlb_bytes"`
	PssBytes      uint64 `json:"pss_bytes"`
	PssAnonBytes  uint64 `json:"pss_anon_bytes"`
	// PrivateBytes is Pss_Anon (RssAnon where smaps_rollup was not read) +
	// VmPTE + VmSwap: dbmem's cost of these processes.
	PrivateBytes uint64 `json:"private_bytes"`
	MaxOOMScore  int    `json:"max_oom_score"`
}

// ConnStep is the host after the first Connections readers opened (read
// without waiting for meminfo to settle).
type ConnStep struct {
	Connections       int    `json:"connections"`
	PageTablesBytes   uint64 `json:"page_tables_bytes"`
	MemAvailableBytes uint64 `json:"mem_available_bytes"`
	// ReadersPTEBytes sums VmPTE of the open readers: their page tables
	// alone, untouched by other programs on the host.
	ReadersPTEBytes uint64 `json:"readers_pte_bytes"`
}

// StepTime is how long one phase of the lab took.
type StepTime struct {
	Name    string        `json:"name"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// HostChange is one change the lab made to the host and its undoing.
type HostChange = hostchange.Undone
