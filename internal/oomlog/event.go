package oomlog

// Event is one OOM report: what asked for memory, what limit was hit, which
// process the kernel killed, what every candidate held and what the whole
// machine held at that moment. A figure the report did not print is nil:
// kernels print different fields, and pasted reports lose lines.
type Event struct {
	// Time is the stamp of the report's first line.
	Time Stamp
	// Trigger is the task whose allocation invoked the OOM killer; nil when
	// the report has no "invoked oom-killer" line (rate limited or cut off).
	Trigger *Trigger
	// Constraint says which limit was exhausted; ConstraintFrom says how it
	// is known (ConstraintFromSummary, ...). ConstraintInferred is true
	// when it was deduced rather than printed as oom-kill:constraint=.
	Constraint         Constraint
	ConstraintInferred bool
	ConstraintFrom     string
	// ConstraintRaw is a constraint= value dbmem does not know, as printed.
	ConstraintRaw string
	// OOMMemcg is the cgroup whose limit was hit (oom_memcg=, or "limit of"
	// in older kernels); TaskMemcg is the victim's own cgroup.
	OOMMemcg, TaskMemcg string
	// Cpuset and MemsAllowed come from the oom-kill summary line or the
	// "x cpuset=y mems_allowed=z" line of older kernels.
	Cpuset, MemsAllowed string
	// Memcg is the "memory: usage ..., limit ..." line of a cgroup OOM.
	Memcg *MemcgUsage
	// Selected is the process an old kernel named in "Kill process N (x)
	// score S or sacrifice child"; it can differ from Victim when the kernel
	// killed a child instead.
	Selected *Selected
	// Summary is the oom-kill:constraint=... line's task, pid and uid (4.19+).
	Summary *Summary
	// Victim is the process that was killed; nil when neither a kill line
	// nor a summary line names it. VictimFrom says which line named it.
	Victim     *Victim
	VictimFrom string
	// MemInfo is the Mem-Info block: the whole machine at that moment.
	MemInfo *MemInfo
	// KernelRelease is the release printed in the stack dump header
	// ("5.15.0-72-generic"), when present.
	KernelRelease string
	// Host is the host name syslog or the journal printed on the report's
	// lines, when they carry one.
	Host string
	// TaskColumns are the task table's column names as printed (without
	// "pid" and "name"); Tasks are its rows.
	TaskColumns []string
	Tasks       []Task
	// Reaped is the oom_reaper's report on the victim, if printed.
	Reaped *Reaped
	// Incomplete is true when the kill part of the report is missing or
	// cut off (no victim, a cut kill line, a victim named only by the
	// oom-kill or oom_reaper line); IncompleteReason says what is missing,
	// StartMissing what of the beginning is ("the log starts after the
	// trigger line").
	Incomplete       bool
	IncompleteReason string
	StartMissing     string
	// Lines are the raw input lines of the report, prefixes included.
	Lines []string
}

// Constraint is the kind of limit the allocation ran into.
type Constraint string

// The constraints the kernel reports (oom-kill:constraint=CONSTRAINT_...).
const (
	ConstraintUnknown   Constraint = ""
	ConstraintGlobal    Constraint = "global"    // CONSTRAINT_NONE: the whole machine
	ConstraintMemcg     Constraint = "memcg"     // a memory cgroup's limit
	ConstraintCpuset    Constraint = "cpuset"    // the nodes of a cpuset
	ConstraintMempolicy Constraint = "mempolicy" // an MPOL_BIND memory policy
)

// Where a constraint was learnt, from the most to the least direct.
const (
	ConstraintFromSummary   = "the oom-kill line"
	ConstraintFromCgroup    = "the memory cgroup lines"
	ConstraintFromKillLine  = "the kill line's wording"
	ConstraintFromCallTrace = "the call trace"
)

// Trigger is the task whose allocation failed.
type Trigger struct {
	Name string
	// PID comes from the stack dump header after the trigger line
	// ("CPU: n PID: p Comm: x", "Pid: p, comm: x" on 2.6/3.x) or from an
	// old "name:pid invoked" form; nil when not printed. It is the
	// allocating thread's id, which for a threaded program may differ
	// from its process id.
	PID *int
	// UID is printed by 6.x kernels ("CPU: n UID: u PID: p").
	UID *int
	// GFPMask is printed as is, e.g. "0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP)".
	GFPMask string
	Order   *int
	// OOMScoreAdj is the trigger's oom_score_adj (oomkilladj on 2.6.2x).
	OOMScoreAdj *int
}

// MemcgUsage is the charge of the cgroup whose limit was hit. A limit of
// 9007199254740988kB (PAGE_COUNTER_MAX) means no limit: LimitUnlimited.
type MemcgUsage struct {
	UsageBytes, LimitBytes uint64
	LimitUnlimited         bool
	Failcnt                uint64
	// Swap is "swap: usage" (v2) or "memory+swap: usage" (v1, where it
	// includes memory); nil when no such line was printed.
	Swap *SwapUsage
}

// SwapUsage is a cgroup's swap (v2) or memory+swap (v1) line.
type SwapUsage struct {
	Kind                   string // "swap" or "memory+swap"
	UsageBytes, LimitBytes uint64
	LimitUnlimited         bool
}

// Selected is the process named by an old kernel's "Kill process" line.
type Selected struct {
	PID   int
	Name  string
	Score *int
}

// Summary is what the oom-kill:constraint= line says of the victim.
type Summary struct {
	Task string
	PID  int
	UID  *int
}

// Victim is the killed process as the kill line describes it. Fields a
// kernel did not print are nil.
type Victim struct {
	PID  int
	Name string
	UID  *int
	// TotalVMBytes is the address space size; the RSS fields are what was
	// resident in anonymous, file-backed and shared (shmem, tmpfs, SysV,
	// /dev/zero) pages. Before ≈4.5 shared memory is counted in file-rss
	// and ShmemRSSBytes is nil.
	TotalVMBytes  *uint64
	AnonRSSBytes  *uint64
	FileRSSBytes  *uint64
	ShmemRSSBytes *uint64
	PgtablesBytes *uint64
	OOMScoreAdj   *int
	// Message is what the kill line started with: "Out of memory",
	// "Memory cgroup out of memory", "No available memory (MPOL_BIND)" ...
	Message string
	// AlreadyExiting is true when the kernel printed "OOM victim N (x) is
	// already exiting. Skip killing the task": nothing was killed.
	AlreadyExiting bool
}

// Task is one row of the task table. Page counts are converted to bytes;
// columns the table's layout does not have are nil.
type Task struct {
	PID, UID, TGID int
	TotalVMBytes   uint64
	RSSBytes       uint64
	// RSSAnonBytes, RSSFileBytes and RSSShmemBytes exist in 6.8+ tables only.
	RSSAnonBytes, RSSFileBytes, RSSShmemBytes *uint64
	// PgtablesBytes is pgtables_bytes (4.15+) or (nr_ptes + nr_pmds) pages.
	PgtablesBytes *uint64
	SwapBytes     *uint64
	// OOMScoreAdj is nil in tables before 2.6.36 (they print oom_adj).
	OOMScoreAdj *int
	Name        string
}

// Reaped is the oom_reaper line: what the victim still held after its
// anonymous memory was torn down.
type Reaped struct {
	PID                        int
	Name                       string
	AnonRSSBytes, FileRSSBytes uint64
	ShmemRSSBytes              *uint64
}

// U64 returns a pointer to v, for the optional figures.
func U64(v uint64) *uint64 { return &v }

// Int returns a pointer to v.
func Int(v int) *int { return &v }
