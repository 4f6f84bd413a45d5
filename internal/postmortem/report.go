package postmortem

import (
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
)

// Schema versions the JSON form of a Report.
const Schema = "dbmem.postmortem/v1"

// Report is the explanation of every OOM kill found.
type Report struct {
	Schema string `json:"schema"`
	Host   string `json:"host,omitempty"`
	// Zone is the zone times are shown in (the host's).
	Zone    string          `json:"zone"`
	Sources []SourceSummary `json:"sources"`
	// Kills counts the OOM kills found; Events are those shown (--since,
	// --last), oldest first; Omitted = Kills - len(Events).
	Kills   int         `json:"kills"`
	Events  []Explained `json:"events"`
	Omitted int         `json:"omitted"`
	// Crashes are database crash restarts no kill explains (another
	// signal, or a kill older than the kernel logs read).
	Crashes []Crash `json:"crashes_without_kill,omitempty"`
	// OutOfMemory are allocations that failed inside PostgreSQL (the query
	// ended, the server stayed up).
	OutOfMemory []OOMError `json:"out_of_memory_errors,omitempty"`
	// Advice follows from the events themselves; Findings are advise.Check's
	// on the current host (or the bundle's), kept to OOM-related ones.
	Advice        []Advice         `json:"advice,omitempty"`
	Findings      []advise.Finding `json:"findings,omitempty"`
	FindingsAbout string           `json:"findings_about,omitempty"`
	Gaps          []linux.Gap      `json:"gaps,omitempty"`
}

// SourceSummary is a log source and what was found in it.
type SourceSummary struct {
	Log
	Kills     int `json:"oom_kills"`
	Crashes   int `json:"crash_restarts"`
	OOMErrors int `json:"out_of_memory_errors"`
}

// Explained is one OOM kill.
type Explained struct {
	// Time is the report's time (zero when the log has no usable clock);
	// TimeRaw the stamp as printed; ZoneKnown false when a zone was assumed.
	Time      time.Time `json:"time,omitzero"`
	TimeRaw   string    `json:"time_raw"`
	ZoneKnown bool      `json:"zone_known"`
	// Sources are the logs holding a copy of the report.
	Sources []string `json:"sources"`
	Scope   Scope    `json:"scope"`
	Trigger *Task    `json:"trigger,omitempty"`
	Victim  Victim   `json:"victim"`
	// Tasks are the largest rows of the task table by RSS; TaskCount all rows.
	Tasks     []Task `json:"top_tasks,omitempty"`
	TaskCount int    `json:"task_count"`
	// TaskSplit is true when the table splits RSS into anon, file and shmem
	// (kernels 6.8+); older tables give RSS only.
	TaskSplit bool   `json:"task_split"`
	Crash     *Crash `json:"crash_restart,omitempty"`
	// Incomplete: the report was cut off (IncompleteReason says where).
	Incomplete       bool   `json:"incomplete,omitempty"`
	IncompleteReason string `json:"incomplete_reason,omitempty"`
	// Notes explain the event in sentences.
	Notes []string `json:"notes"`
	// KillLine is the kernel's kill line as printed.
	KillLine string `json:"kill_line,omitempty"`
}

// Scope is the limit that was hit.
type Scope struct {
	// Constraint: global, memcg, cpuset, mempolicy or "" (unknown).
	Constraint string `json:"constraint"`
	Inferred   bool   `json:"inferred,omitempty"`
	// Cgroup is the memory cgroup whose limit was hit, TaskCgroup the
	// victim's own.
	Cgroup     string `json:"cgroup,omitempty"`
	TaskCgroup string `json:"task_cgroup,omitempty"`
	LimitBytes uint64 `json:"limit_bytes,omitempty"`
	UsageBytes uint64 `json:"usage_bytes,omitempty"`
}

// Task is a process of the task table (or the trigger), with its role
// when known.
type Task struct {
	PID  int    `json:"pid"`
	Name string `json:"name"`
	// Role ("client backend", "checkpointer", "postmaster", "mysqld") and
	// where it was learnt (RoleFrom: "database log", "running process").
	Role          string `json:"role,omitempty"`
	RoleFrom      string `json:"role_from,omitempty"`
	Instance      string `json:"instance,omitempty"`
	RSSBytes      uint64 `json:"rss_bytes"`
	AnonBytes     uint64 `json:"rss_anon_bytes,omitempty"`
	ShmemBytes    uint64 `json:"rss_shmem_bytes,omitempty"`
	PgtablesBytes uint64 `json:"pgtables_bytes"`
	SwapBytes     uint64 `json:"swap_bytes"`
	OOMScoreAdj   int    `json:"oom_score_adj"`
	Victim        bool   `json:"victim,omitempty"`
}

// Victim is the killed process as the kill line (and task table) show it.
type Victim struct {
	Task
	UID            *int   `json:"uid,omitempty"`
	TotalVMBytes   uint64 `json:"total_vm_bytes"`
	FileBytes      uint64 `json:"rss_file_bytes"`
	HasShmem       bool   `json:"has_shmem"`
	HasOOMScoreAdj bool   `json:"has_oom_score_adj"`
	// ShmemShare is shmem-rss / RSS; FreedBytes what the kill gave back
	// (anon-rss + page tables); ShmemDominates when shared memory was over
	// half the RSS.
	ShmemShare     float64 `json:"shmem_share"`
	FreedBytes     uint64  `json:"freed_bytes"`
	ShmemDominates bool    `json:"shmem_dominates"`
	ReapedBytes    *uint64 `json:"reaped_bytes,omitempty"`
	AlreadyExiting bool    `json:"already_exiting,omitempty"`
}

// Crash is what the database log says happened next.
type Crash struct {
	Engine    string    `json:"engine"`
	Instance  string    `json:"instance,omitempty"`
	Source    string    `json:"source"`
	Time      time.Time `json:"time,omitzero"`
	TimeRaw   string    `json:"time_raw"`
	ZoneKnown bool      `json:"zone_known"`
	Process   string    `json:"process,omitempty"`
	KilledPID int       `json:"killed_pid"`
	ServerPID int       `json:"server_pid,omitempty"`
	Signal    int       `json:"signal,omitempty"`
	// Query is what the killed backend was running, when logged.
	Query              string `json:"query,omitempty"`
	SessionsTerminated int    `json:"sessions_terminated"`
	// MatchedBy: "pid" (certain), "time" or "time-shifted" (guesses);
	// Guess says why it is one. Delta is crash time minus kill time after
	// Shift, the clock offset assumed.
	MatchedBy string        `json:"matched_by,omitempty"`
	Certain   bool          `json:"certain"`
	Guess     string        `json:"guess,omitempty"`
	Shift     time.Duration `json:"shift_ns,omitempty"`
	Delta     time.Duration `json:"delta_ns,omitempty"`
	// Steps are the restart's milestones in order.
	Steps []Step `json:"steps"`
	// Downtime is from the kill (or the crash line) to ready; Recovery from
	// reinitializing to ready.
	Downtime         time.Duration `json:"downtime_ns,omitempty"`
	Recovery         time.Duration `json:"recovery_ns,omitempty"`
	NoRestart        bool          `json:"no_restart,omitempty"`
	Incomplete       bool          `json:"incomplete,omitempty"`
	IncompleteReason string        `json:"incomplete_reason,omitempty"`
}

// Step is one milestone of a restart, After the kill (or crash line).
type Step struct {
	What  string        `json:"what"`
	At    time.Time     `json:"at"`
	After time.Duration `json:"after_ns"`
}

// OOMError is PostgreSQL's "ERROR: out of memory".
type OOMError struct {
	Time         time.Time `json:"time,omitzero"`
	TimeRaw      string    `json:"time_raw"`
	Instance     string    `json:"instance,omitempty"`
	Source       string    `json:"source"`
	PID          int       `json:"pid"`
	Severity     string    `json:"severity"`
	RequestBytes uint64    `json:"request_bytes,omitempty"`
	Context      string    `json:"context,omitempty"`
	// Largest is the memory context holding the most, from the dump.
	Largest      string `json:"largest_context,omitempty"`
	LargestBytes uint64 `json:"largest_context_bytes,omitempty"`
	GrandTotal   uint64 `json:"grand_total_bytes,omitempty"`
	Query        string `json:"query,omitempty"`
}

// Advice is what an event itself shows should change.
type Advice struct {
	ID     string `json:"id"`
	Events []int  `json:"events"` // 1-based indexes into Events
	Title  string `json:"title"`
	Why    string `json:"why"`
	Fix    string `json:"fix"`
}
