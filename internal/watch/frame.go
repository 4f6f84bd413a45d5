package watch

import (
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
)

// FrameSchema versions the JSON form of a Frame (`dbmem watch --json`
// prints one per line).
const FrameSchema = "dbmem.watch/v1"

// Frame is what the view shows at one tick, every number computed.
type Frame struct {
	Schema     string        `json:"schema"`
	At         time.Time     `json:"at"`
	Tick       int           `json:"tick"`
	Mode       string        `json:"mode"`
	Host       HostFrame     `json:"host"`
	Instances  []Instance    `json:"instances"`
	TopPrivate []Proc        `json:"top_private"`
	TopOOM     []Proc        `json:"top_oom"`
	Findings   []FindingSeen `json:"findings"`
	Cost       Cost          `json:"cost"`
	LastSmaps  *SmapsPass    `json:"last_smaps,omitempty"`
	Gaps       []linux.Gap   `json:"gaps,omitempty"`
}

// HostFrame is the host-wide numbers that move.
type HostFrame struct {
	Hostname          string `json:"hostname"`
	MemTotalBytes     uint64 `json:"mem_total_bytes"`
	MemAvailableBytes uint64 `json:"mem_available_bytes"`
	// MemAvailableDelta is the change since the previous tick.
	MemAvailableDelta int64  `json:"mem_available_delta_bytes"`
	PageTablesBytes   uint64 `json:"page_tables_bytes"`
	CommittedASBytes  uint64 `json:"committed_as_bytes"`
	CommitLimitBytes  uint64 `json:"commit_limit_bytes"`
	OvercommitMemory  int64  `json:"overcommit_memory"`
	SwapTotalBytes    uint64 `json:"swap_total_bytes"`
	SwapUsedBytes     uint64 `json:"swap_used_bytes"`
	// SwapInPerSec and SwapOutPerSec are pages per second since the previous
	// tick; Rates is false on the first tick or without /proc/vmstat.
	SwapInPerSec  float64     `json:"swap_in_pages_per_sec"`
	SwapOutPerSec float64     `json:"swap_out_pages_per_sec"`
	Rates         bool        `json:"rates"`
	OOMKills      uint64      `json:"oom_kills"`     // since boot
	OOMKillsNew   uint64      `json:"oom_kills_new"` // since the watch started
	HugePages     []HugePages `json:"huge_pages"`
}

// HugePages is one page size's host-wide pool.
type HugePages struct {
	PageSizeBytes uint64 `json:"page_size_bytes"`
	Total         uint64 `json:"total"`
	InUse         uint64 `json:"in_use"`
}

// Instance is one PostgreSQL instance's moving numbers.
type Instance struct {
	PostmasterPID  int    `json:"postmaster_pid"`
	Port           int    `json:"port"`
	DataDir        string `json:"data_dir"`
	Version        string `json:"version"`
	Processes      int    `json:"processes"`
	Connections    int    `json:"connections"`
	MaxConnections int64  `json:"max_connections"`
	// PrivateBytes is Pss_Anon + VmPTE + VmSwap summed over the processes
	// on a smaps tick (PrivateExact), else RssAnon + VmPTE + VmSwap: current
	// but an over-estimate (pages still shared copy-on-write count fully).
	PrivateBytes uint64 `json:"private_bytes"`
	PrivateExact bool   `json:"private_exact"`
	// EstimateBytes is RssAnon + VmPTE + VmSwap on every tick, smaps or
	// not: a series that does not jump when Pss is read.
	EstimateBytes uint64 `json:"estimate_bytes"`
	// PssPrivateBytes is the exact figure from the last smaps tick (PssAt).
	PssPrivateBytes uint64     `json:"pss_private_bytes"`
	PssAt           *time.Time `json:"pss_at,omitempty"`
	VmPTEBytes      uint64     `json:"vm_pte_bytes"`
	SharedBytes     uint64     `json:"shared_bytes"`
	SharedPageBytes uint64     `json:"shared_page_bytes"`
}

// Proc is one line of a top list.
type Proc struct {
	PID          int    `json:"pid"`
	Comm         string `json:"comm"`
	Role         string `json:"role,omitempty"` // PostgreSQL role, "" for other programs
	Port         int    `json:"port,omitempty"`
	PrivateBytes uint64 `json:"private_bytes"`
	Exact        bool   `json:"exact"`
	OOMScore     int    `json:"oom_score"`
	OOMScoreAdj  int    `json:"oom_score_adj"`
}

// FindingSeen is a finding with when this watch first saw it.
type FindingSeen struct {
	advise.Finding
	Since time.Time `json:"since"`
	// New is true on the tick the finding appeared (after the first tick).
	New bool `json:"new"`
}

// SmapsPass tells when the expensive numbers were last read and their cost.
type SmapsPass struct {
	At   time.Time `json:"at"`
	Cost Cost      `json:"cost"`
}
