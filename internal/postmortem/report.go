package postmortem

import (
	"time"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
)

// Schema versions the JSON form of a Report. v2: a figure the logs did not
// give is null (v1 printed 0), events say whether they come from this
// host's own logs, and the Mem-Info block is reported.
const Schema = "dbmem.postmortem/v2"

// Report is the explanation of every OOM kill found.
type Report struct {
	Schema string `json:"schema"`
	// Host is this host's name (the one dbmem runs on, or the bundle's).
	Host string `json:"host,omitempty"`
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
	// Services are what the service manager did with each unit after a
	// kill (stopped, restarted, kept running) and for how long it was down.
	Services []Service `json:"services,omitempty"`
	// Killers are kills by systemd-oomd, earlyoom, kubelet, Kubernetes and
	// panics on OOM.
	Killers []Killer `json:"other_killers,omitempty"`
	// MemoryErrors are MySQL/MariaDB and Oracle allocations that failed;
	// Terminations Oracle instances that ended; Ready the MySQL/MariaDB
	// "ready for connections" timeline.
	MemoryErrors []MemoryError `json:"memory_errors,omitempty"`
	Terminations []Termination `json:"oracle_terminations,omitempty"`
	Ready        []ServerReady `json:"ready_for_connections,omitempty"`
	// Advice follows from the logs alone.
	Advice []Advice `json:"advice,omitempty"`
	// ThisHost is what this host shows now about the events of its own
	// logs: advise.Check's findings and remarks on the running instances.
	// It is empty when no event comes from this host's logs; ThisHostWhy
	// then says why.
	ThisHost    *HostSection `json:"this_host,omitempty"`
	ThisHostWhy string       `json:"this_host_omitted,omitempty"`
	Gaps        []linux.Gap  `json:"gaps,omitempty"`
}

// HostSection is this host's state, for the events of its own logs.
type HostSection struct {
	// About says which state: "this host as it is now", "the host as
	// captured at ...".
	About    string            `json:"about"`
	Notes    []string          `json:"notes,omitempty"`
	Findings []finding.Finding `json:"findings,omitempty"`
}

// SourceSummary is a log source and what was found in it.
type SourceSummary struct {
	Log
	Kills     int `json:"oom_kills"`
	Crashes   int `json:"crash_restarts"`
	OOMErrors int `json:"out_of_memory_errors"`
	// LongLines were too long to be log lines that matter and were skipped.
	LongLines int `json:"long_lines_skipped"`
	// Services and Killers count the unit incidents and other killers'
	// events; MemoryErrors MySQL/Oracle memory errors.
	Services     int `json:"services,omitempty"`
	Killers      int `json:"other_killers,omitempty"`
	MemoryErrors int `json:"memory_errors,omitempty"`
}

// Explained is one OOM kill (or a report that names no victim).
type Explained struct {
	// Time is the report's time, null when the log has no usable clock;
	// TimeRaw the stamp as printed; ZoneKnown false when a zone was
	// assumed; YearFrom says where the year of a syslog stamp came from.
	Time      *time.Time `json:"time"`
	TimeRaw   string     `json:"time_raw"`
	ZoneKnown bool       `json:"zone_known"`
	YearFrom  string     `json:"year_from,omitempty"`
	// Sources are the logs holding a copy of the report.
	Sources []string `json:"sources"`
	// FromThisHost is true when the report is in this host's own logs;
	// Origin says why or why not; Host and KernelRelease are what the
	// report's lines print.
	FromThisHost  bool   `json:"from_this_host"`
	Origin        string `json:"origin"`
	Host          string `json:"host,omitempty"`
	KernelRelease string `json:"kernel_release,omitempty"`
	Scope         Scope  `json:"scope"`
	// Trigger is null when the report has no "invoked oom-killer" line;
	// Victim when no line names the victim.
	Trigger *Trigger `json:"trigger"`
	Victim  *Victim  `json:"victim"`
	// Selected is the process an old kernel's "Kill process N (x) score S"
	// line chose (its child may have been killed instead).
	Selected *Selected `json:"selected,omitempty"`
	// Tasks are the largest rows of the task table by RSS; TaskCount all rows.
	Tasks     []Task `json:"top_tasks,omitempty"`
	TaskCount int    `json:"task_count"`
	// Machine is the Mem-Info block: the whole machine at that moment.
	Machine *Machine `json:"machine"`
	Crash   *Crash   `json:"crash_restart,omitempty"`
	// Incomplete: the report was cut off (IncompleteReason says where).
	Incomplete       bool   `json:"incomplete,omitempty"`
	IncompleteReason string `json:"incomplete_reason,omitempty"`
	// Headline is the main cause when the machine's state shows one (page
	// tables, a huge page pool or shared memory taking most of it).
	Headline string `json:"headline,omitempty"`
	// Notes explain the event in sentences.
	Notes []string `json:"notes"`
	// KillLine is the kernel's kill line as printed.
	KillLine string `json:"kill_line,omitempty"`
	// Services are the 1-based indexes (Report.Services) of the unit
	// incidents tied to this kill.
	Services []int `json:"services,omitempty"`
}

// Scope is the limit that was hit.
type Scope struct {
	// Constraint: global, memcg, cpuset, mempolicy or "" (not in the log);
	// From says which lines told it; Inferred is true unless it was printed.
	Constraint string `json:"constraint"`
	From       string `json:"from,omitempty"`
	Inferred   bool   `json:"inferred,omitempty"`
	// Cgroup is the memory cgroup whose limit was hit, TaskCgroup the
	// victim's own.
	Cgroup     string `json:"cgroup,omitempty"`
	TaskCgroup string `json:"task_cgroup,omitempty"`
	// LimitBytes and UsageBytes are the "memory: usage" line's; null when
	// it was not printed. LimitUnlimited: the printed limit means none.
	LimitBytes     *uint64 `json:"limit_bytes"`
	LimitUnlimited bool    `json:"limit_unlimited,omitempty"`
	UsageBytes     *uint64 `json:"usage_bytes"`
}

// Trigger is the process whose allocation invoked the OOM killer.
type Trigger struct {
	PID         *int   `json:"pid"`
	Name        string `json:"name"`
	UID         *int   `json:"uid"`
	OOMScoreAdj *int   `json:"oom_score_adj"`
	GFPMask     string `json:"gfp_mask,omitempty"`
	Order       *int   `json:"order"`
	Role        string `json:"role,omitempty"`
	RoleFrom    string `json:"role_from,omitempty"`
	Instance    string `json:"instance,omitempty"`
}

// Task is a row of the task table, with its role when known. Columns the
// kernel's table layout does not have are null.
type Task struct {
	PID  int    `json:"pid"`
	Name string `json:"name"`
	// Role ("client backend", "checkpointer", "postmaster", "mysqld") and
	// where it was learnt (RoleFrom: "database log", "running process").
	Role          string  `json:"role,omitempty"`
	RoleFrom      string  `json:"role_from,omitempty"`
	Instance      string  `json:"instance,omitempty"`
	UID           int     `json:"uid"`
	RSSBytes      uint64  `json:"rss_bytes"`
	AnonBytes     *uint64 `json:"rss_anon_bytes"`
	ShmemBytes    *uint64 `json:"rss_shmem_bytes"`
	PgtablesBytes *uint64 `json:"pgtables_bytes"`
	SwapBytes     *uint64 `json:"swap_bytes"`
	OOMScoreAdj   *int    `json:"oom_score_adj"`
	Victim        bool    `json:"victim,omitempty"`
}

// Victim is the killed process as the kill line (and task table) show it.
type Victim struct {
	PID      int    `json:"pid"`
	Name     string `json:"name"`
	Role     string `json:"role,omitempty"`
	RoleFrom string `json:"role_from,omitempty"`
	Instance string `json:"instance,omitempty"`
	// NamedBy is the line that named it: "the kill line", "the oom-kill
	// line" (no kill line), "the oom_reaper line".
	NamedBy       string  `json:"named_by"`
	UID           *int    `json:"uid"`
	TotalVMBytes  *uint64 `json:"total_vm_bytes"`
	RSSBytes      *uint64 `json:"rss_bytes"`
	AnonBytes     *uint64 `json:"rss_anon_bytes"`
	FileBytes     *uint64 `json:"rss_file_bytes"`
	ShmemBytes    *uint64 `json:"rss_shmem_bytes"`
	PgtablesBytes *uint64 `json:"pgtables_bytes"`
	SwapBytes     *uint64 `json:"swap_bytes"`
	OOMScoreAdj   *int    `json:"oom_score_adj"`
	// ShmemShare is shmem-rss / RSS; FreedBytes what the kill gave back
	// (anon-rss + page tables); ShmemDominates when shared memory was over
	// half the RSS. Null when the figures they need were not printed.
	ShmemShare            *float64 `json:"shmem_share"`
	FreedBytes            *uint64  `json:"freed_bytes"`
	FreedIncludesPgtables bool     `json:"freed_includes_pgtables"`
	ShmemDominates        bool     `json:"shmem_dominates"`
	ReapedBytes           *uint64  `json:"reaped_bytes"`
	AlreadyExiting        bool     `json:"already_exiting,omitempty"`
	// Selected is the process an old kernel chose before killing a child.
	SelectedPID *int `json:"selected_pid,omitempty"`
}

// Selected is the process named by "Kill process N (x) score S".
type Selected struct {
	PID   int    `json:"pid"`
	Name  string `json:"name"`
	Score *int   `json:"score"`
}

// Advice is what the logs themselves show should change.
type Advice struct {
	ID     string `json:"id"`
	Events []int  `json:"events"` // 1-based indexes into Events (empty: about Crashes)
	Title  string `json:"title"`
	Why    string `json:"why"`
	Fix    string `json:"fix"`
}
