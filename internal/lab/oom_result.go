package lab

import (
	"time"

	"github.com/dbmem/dbmem/internal/memcg"
	"github.com/dbmem/dbmem/internal/postmortem"
)

// OOMSchema versions the JSON form of an OOMResult.
const OOMSchema = "dbmem.lab-oom/v1"

// OOMResult is everything one `dbmem lab oom` run measured.
type OOMResult struct {
	Schema     string        `json:"schema"`
	StartedAt  time.Time     `json:"started_at"`
	FinishedAt time.Time     `json:"finished_at"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	Host       HostInfo      `json:"host"`
	Config     OOMConfig     `json:"config"`
	// Cgroup is the memory cgroup the cluster ran in.
	Cgroup *memcg.Group `json:"cgroup,omitempty"`
	// Unprotected and Protected are the two runs of the runaway query.
	Unprotected *OOMRun `json:"unprotected,omitempty"`
	Protected   *OOMRun `json:"protected,omitempty"`
	// Protection is how the protected run was protected.
	Protection *Protection  `json:"protection,omitempty"`
	Restored   []HostChange `json:"restored"`
	Notes      []string     `json:"notes,omitempty"`
	Steps      []StepTime   `json:"steps"`
}

// OOMRun is one run of the runaway query while pgbench runs.
type OOMRun struct {
	Name string `json:"name"` // "unprotected" or "protected"
	// QueryPID is the backend that ran the runaway query.
	QueryPID   int       `json:"query_pid"`
	QueryStart time.Time `json:"query_start"`
	QueryEnd   time.Time `json:"query_end"`
	// Outcome: OutcomeKilled, OutcomeOutOfMemory, OutcomeFinished or
	// OutcomeCancelled; QueryError what the client was told (inert).
	Outcome    string `json:"outcome"`
	QueryError string `json:"query_error,omitempty"`
	// KilledAt is the kernel's kill, from its log (when the log has no
	// usable clock: when the lab saw the backend gone). GoneAt is when the
	// backend had exited (the lab polls /proc every 5 ms), ReadyAt when a
	// new connection could run a query again; ReadyAfter = ReadyAt -
	// KilledAt. ServerDowntime is the post-mortem's: from the kill to the
	// server's "ready to accept connections". All absent when nothing was
	// killed.
	KilledAt       *time.Time     `json:"killed_at,omitempty"`
	GoneAt         *time.Time     `json:"gone_at,omitempty"`
	ReadyAt        *time.Time     `json:"ready_at,omitempty"`
	ReadyAfter     *time.Duration `json:"ready_after_ns,omitempty"`
	ServerDowntime *time.Duration `json:"server_downtime_ns,omitempty"`
	// KillLine is the kernel's kill line (inert).
	KillLine string `json:"kill_line,omitempty"`
	// PeakBytes and OOMKills are the cgroup's, over this run.
	PeakBytes *uint64  `json:"cgroup_peak_bytes,omitempty"`
	OOMKills  *uint64  `json:"cgroup_oom_kills,omitempty"`
	Sessions  Sessions `json:"sessions"`
	// ServerLog are the postmaster's lines about the event, as logged
	// (inert): the kill, "terminating any other active server
	// processes", "all server processes terminated; reinitializing", the
	// recovery and "ready to accept connections", or the "out of memory"
	// error.
	ServerLog []string `json:"server_log"`
	TPS       TPS      `json:"tps"`
	// Memory samples the cgroup and the runaway backend every 100 ms.
	Memory []MemSample `json:"memory"`
	// Postmortem is `dbmem postmortem` on this run's kernel log and server
	// log; Verdict says whether it explains what happened.
	Postmortem     *postmortem.Report `json:"postmortem,omitempty"`
	PostmortemText string             `json:"postmortem_text,omitempty"`
	Verdict        Verdict            `json:"verdict"`
	// kernelText and serverText are the logs the post-mortem read (kept
	// for tests that record them as fixtures).
	kernelText, serverText string
	// Commit is the host's commit headroom while strict overcommit was on
	// (protected run with StrictOvercommit only).
	Commit *CommitWatch `json:"commit,omitempty"`
}

// Outcomes of the runaway query.
const (
	OutcomeKilled      = "killed by the OOM killer"
	OutcomeOutOfMemory = "out of memory"
	OutcomeFinished    = "finished"
	OutcomeCancelled   = "cancelled"
)

// Sessions counts the sessions open when the runaway query ran and those
// it took down.
type Sessions struct {
	// Open = pgbench clients + idle sessions + the runaway's own.
	Open           int `json:"open"`
	Lost           int `json:"lost"`
	PgbenchClients int `json:"pgbench_clients"`
	PgbenchAborted int `json:"pgbench_aborted"`
	Idle           int `json:"idle"`
	IdleLost       int `json:"idle_lost"`
	// RunawayLost is true when the runaway's own session was gone after.
	RunawayLost bool `json:"runaway_lost"`
	// IdleError is what a lost idle session was told (inert).
	IdleError string `json:"idle_error,omitempty"`
}

// TPS is pgbench's throughput around the runaway query: the mean of its
// per-second reports before the query, from the query's start to its end
// (and while the server restarted: 0), and after. A phase without a
// report is nil.
type TPS struct {
	Before  *float64    `json:"before,omitempty"`
	During  *float64    `json:"during,omitempty"`
	After   *float64    `json:"after,omitempty"`
	Samples []TPSSample `json:"samples"`
}

// TPSSample is one of pgbench's reports (-P 1 --progress-timestamp): the
// transactions per second of the second that ended At.
type TPSSample struct {
	At  time.Time `json:"at"`
	TPS float64   `json:"tps"`
}

// MemSample is the cgroup's usage and the runaway backend's anonymous
// memory at one moment.
type MemSample struct {
	At           time.Time `json:"at"`
	CgroupBytes  uint64    `json:"cgroup_bytes"`
	RunawayBytes uint64    `json:"runaway_anon_bytes"`
}

// Verdict says whether `dbmem postmortem` explains the run: for a kill,
// the victim, the cgroup and the crash restart paired by PID; for the
// protected run, no kill and the query's "out of memory".
type Verdict struct {
	Explains bool     `json:"explains"`
	Summary  string   `json:"summary"`
	Missing  []string `json:"missing,omitempty"`
}

// Protection is how the protected run kept the runaway query from the OOM
// killer, with the arithmetic.
type Protection struct {
	// Real is true when vm.overcommit_memory=2 was set on the host; false
	// for the emulation (an address-space limit on the cluster).
	Real   bool   `json:"real"`
	Method string `json:"method"`
	// The strict overcommit formula of `dbmem plan` for the machine
	// (the cgroup's limit when emulated, the host when real).
	Reserve          float64 `json:"reserve"`
	Ratio            int     `json:"ratio"`
	Formula          string  `json:"formula"`
	MachineBytes     uint64  `json:"machine_bytes"`
	CommitLimitBytes uint64  `json:"commit_limit_bytes"`
	// ClusterCommitBytes is what the cluster had committed before the query
	// (emulation: its shared memory + its processes' VmData + VmStk).
	ClusterCommitBytes uint64 `json:"cluster_commit_bytes"`
	// BudgetBytes is what the formula leaves a query: CommitLimit - the
	// cluster's commit.
	BudgetBytes uint64 `json:"budget_bytes"`
	// Emulation: RLIMIT_AS of the postmaster (inherited by every backend)
	// = a new backend's VmSize + the budget.
	BackendVmSizeBytes     uint64 `json:"backend_vm_size_bytes,omitempty"`
	AddressSpaceLimitBytes uint64 `json:"address_space_limit_bytes,omitempty"`
	// Differs says how the emulation differs from the real setting.
	Differs []string `json:"differs,omitempty"`
	// Real: the plan, its proof of safety, and the settings changed.
	Strict *StrictPlan `json:"strict,omitempty"`
}

// CommitWatch is the host's commit headroom (CommitLimit - Committed_AS)
// sampled every 10 ms while strict overcommit was on.
type CommitWatch struct {
	On            time.Duration `json:"on_ns"`
	MinGapBytes   int64         `json:"min_gap_bytes"`
	BelowHeadroom time.Duration `json:"below_headroom_ns"`
	Samples       int           `json:"samples"`
}
