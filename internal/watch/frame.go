package watch

import (
	"time"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// FrameSchema versions the JSON form of a Frame (`dbmem watch --json`
// prints one per line).
// v2: a number that was not read is omitted (null in no field), never 0.
// Since added to v2: mysql (MySQLServer), a port that is not known is
// omitted (it was 0).
const FrameSchema = "dbmem.watch/v2"

// Frame is what the view shows at one tick, every number computed.
type Frame struct {
	Schema    string     `json:"schema"`
	At        time.Time  `json:"at"`
	Tick      int        `json:"tick"`
	Mode      string     `json:"mode"`
	Host      HostFrame  `json:"host"`
	Instances []Instance `json:"instances"`
	// MySQL lists the running mysqld and mariadbd servers.
	MySQL      []MySQLServer `json:"mysql"`
	TopPrivate []Proc        `json:"top_private"`
	TopOOM     []Proc        `json:"top_oom"`
	// Backends is the per-backend view (every PostgreSQL process but the
	// postmasters), most expensive first, at most MaxFrameBackends.
	Backends []Backend `json:"backends,omitempty"`
	// Growing are the backends and roles whose private cost grows steadily,
	// with a forecast of when each limit would be reached.
	Growing []Growing `json:"growing,omitempty"`
	// XRays are the X-rays taken since the previous frame (the x key,
	// --xray-growing), by group.
	XRays     []XRayParts   `json:"xrays,omitempty"`
	Findings  []FindingSeen `json:"findings"`
	Cost      sampler.Cost  `json:"cost"`
	LastSmaps *SmapsPass    `json:"last_smaps,omitempty"`
	Gaps      []linux.Gap   `json:"gaps,omitempty"`
}

// HostFrame is the host-wide numbers that move. A field is nil (omitted)
// when the kernel did not give it.
type HostFrame struct {
	Hostname          string  `json:"hostname"`
	MemTotalBytes     *uint64 `json:"mem_total_bytes,omitempty"`
	MemAvailableBytes *uint64 `json:"mem_available_bytes,omitempty"`
	// MemAvailableEstimated: the kernel has no MemAvailable (before 3.14);
	// MemAvailableBytes is the classic estimate (linux.Meminfo.AvailableEstimateFormula).
	MemAvailableEstimated bool `json:"mem_available_estimated,omitempty"`
	// MemAvailableDelta is the change since the previous tick.
	MemAvailableDelta *int64  `json:"mem_available_delta_bytes,omitempty"`
	PageTablesBytes   *uint64 `json:"page_tables_bytes,omitempty"`
	CommittedASBytes  *uint64 `json:"committed_as_bytes,omitempty"`
	CommitLimitBytes  *uint64 `json:"commit_limit_bytes,omitempty"`
	OvercommitMemory  *int64  `json:"overcommit_memory,omitempty"`
	SwapTotalBytes    *uint64 `json:"swap_total_bytes,omitempty"`
	SwapUsedBytes     *uint64 `json:"swap_used_bytes,omitempty"`
	// SwapInPerSec and SwapOutPerSec are pages per second since the previous
	// tick; Rates is false on the first tick or without /proc/vmstat.
	SwapInPerSec  float64 `json:"swap_in_pages_per_sec"`
	SwapOutPerSec float64 `json:"swap_out_pages_per_sec"`
	Rates         bool    `json:"rates"`
	// OOMKills is since boot, OOMKillsNew since the watch started; both
	// nil without the oom_kill line of /proc/vmstat (before Linux 4.13).
	OOMKills    *uint64     `json:"oom_kills,omitempty"`
	OOMKillsNew *uint64     `json:"oom_kills_new,omitempty"`
	HugePages   []HugePages `json:"huge_pages"`
}

// HugePages is one page size's host-wide pool.
type HugePages struct {
	PageSizeBytes uint64 `json:"page_size_bytes"`
	Total         uint64 `json:"total"`
	InUse         uint64 `json:"in_use"`
}

// Instance is one PostgreSQL instance's moving numbers.
type Instance struct {
	PostmasterPID int `json:"postmaster_pid"`
	// Port is nil when neither postmaster.pid nor a verified connection
	// told it.
	Port        *int   `json:"port,omitempty"`
	DataDir     string `json:"data_dir"`
	Version     string `json:"version"`
	Processes   int    `json:"processes"`
	Connections int    `json:"connections"`
	// ActiveSessions is the client backends running a query when
	// pg_stat_activity was read at this tick (state active, dbmem's own
	// session left out); nil when it was not read (not connected).
	ActiveSessions *int   `json:"active_sessions,omitempty"`
	MaxConnections *int64 `json:"max_connections,omitempty"`
	// PrivateBytes is Pss_Anon + VmPTE + VmSwap summed over the processes
	// on a smaps tick (PrivateExact), else RssAnon + VmPTE + VmSwap: current
	// but an over-estimate (pages still shared copy-on-write count fully).
	// It and the other sums are nil when a process lacks a term.
	PrivateBytes *uint64 `json:"private_bytes,omitempty"`
	PrivateExact bool    `json:"private_exact"`
	// EstimateBytes is RssAnon + VmPTE + VmSwap on every tick, smaps or
	// not: a series that does not jump when Pss is read.
	EstimateBytes *uint64 `json:"estimate_bytes,omitempty"`
	// PssPrivateBytes is the exact figure from the last smaps tick (PssAt).
	PssPrivateBytes *uint64    `json:"pss_private_bytes,omitempty"`
	PssAt           *time.Time `json:"pss_at,omitempty"`
	VmPTEBytes      *uint64    `json:"vm_pte_bytes,omitempty"`
	// SharedBytes and SharedPageBytes are the main shared segment's, nil
	// when it was not seen (the postmaster's smaps needs root).
	SharedBytes     *uint64 `json:"shared_bytes,omitempty"`
	SharedPageBytes *uint64 `json:"shared_page_bytes,omitempty"`
	// CgroupLimitBytes and CgroupUsageBytes are the instance's memory
	// cgroup's, as of the last discovery; nil without a limit.
	CgroupLimitBytes *uint64 `json:"cgroup_limit_bytes,omitempty"`
	CgroupUsageBytes *uint64 `json:"cgroup_usage_bytes,omitempty"`
}

// Proc is one line of a top list.
type Proc struct {
	PID          int     `json:"pid"`
	Comm         string  `json:"comm"`
	Role         string  `json:"role,omitempty"` // PostgreSQL role; "mysql" or "mariadb" for such a server; "" for other programs
	Port         *int    `json:"port,omitempty"` // the instance's, nil when not known
	PrivateBytes *uint64 `json:"private_bytes,omitempty"`
	Exact        bool    `json:"exact"`
	OOMScore     *int    `json:"oom_score,omitempty"`
	OOMScoreAdj  *int    `json:"oom_score_adj,omitempty"`
}

// FindingSeen is a finding with when this watch first saw it.
type FindingSeen struct {
	finding.Finding
	Since time.Time `json:"since"`
	// New is true on the tick the finding appeared (after the first tick).
	New bool `json:"new"`
}

// SmapsPass tells when the expensive numbers were last read and their cost.
type SmapsPass struct {
	At   time.Time    `json:"at"`
	Cost sampler.Cost `json:"cost"`
}
