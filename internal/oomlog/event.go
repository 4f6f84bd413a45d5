package oomlog

// Event is one OOM report: what asked for memory, what limit was hit, which
// process the kernel killed and what every candidate held at that moment.
type Event struct {
	// Time is the stamp of the report's first line.
	Time Stamp
	// Trigger is the task whose allocation invoked the OOM killer; nil when
	// the report has no "invoked oom-killer" line (rate limited or cut off).
	Trigger *Trigger
	// Constraint says which limit was exhausted.
	Constraint Constraint
	// ConstraintInferred is true when Constraint was not printed as
	// oom-kill:constraint= but deduced from the kill line's wording.
	ConstraintInferred bool
	// OOMMemcg is the cgroup whose limit was hit (oom_memcg=, or "limit of"
	// in older kernels); TaskMemcg is the victim's own cgroup.
	OOMMemcg, TaskMemcg string
	// Cpuset and MemsAllowed come from the oom-kill summary line.
	Cpuset, MemsAllowed string
	// Memcg is the "memory: usage ..., limit ..." line of a cgroup OOM.
	Memcg *MemcgUsage
	// Selected is the process an old kernel named in "Kill process N (x)
	// score S or sacrifice child"; it can differ from Victim when the kernel
	// killed a child instead.
	Selected *Selected
	// Victim is the process that was killed; nil when the kill line is missing.
	Victim *Victim
	// TaskColumns are the task table's column names as printed (without
	// "pid" and "name"); Tasks are its rows.
	TaskColumns []string
	Tasks       []Task
	// Reaped is the oom_reaper's report on the victim, if printed.
	Reaped *Reaped
	// Incomplete is true when the report was cut off; IncompleteReason says
	// what is missing.
	Incomplete       bool
	IncompleteReason string
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

// Trigger is the task whose allocation failed.
type Trigger struct {
	Name string
	// PID comes from the "CPU: n PID: p Comm: x" line after the trigger
	// line, or from an old "name:pid invoked" form; 0 if not printed. It is
	// the allocating thread's id, which for a threaded program may differ
	// from its process id.
	PID int
	// GFPMask is printed as is, e.g. "0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP)".
	GFPMask string
	Order   int
	// OOMScoreAdj is the trigger's oom_score_adj (oomkilladj on 2.6.2x).
	OOMScoreAdj    int
	HasOOMScoreAdj bool
}

// MemcgUsage is the charge of the cgroup whose limit was hit.
type MemcgUsage struct {
	UsageBytes, LimitBytes uint64
	Failcnt                uint64
	// SwapUsageBytes and SwapLimitBytes come from "swap: usage" (v2) or
	// "memory+swap: usage" (v1, where they include memory); HasSwap tells
	// whether such a line was printed.
	SwapUsageBytes, SwapLimitBytes uint64
	HasSwap                        bool
}

// Selected is the process named by an old kernel's "Kill process" line.
type Selected struct {
	PID   int
	Name  string
	Score int
}

// Victim is the killed process as the kill line describes it. Fields a
// kernel did not print are zero; the Has* fields say which were printed.
type Victim struct {
	PID  int
	Name string
	UID  int
	// TotalVMBytes is the address space size; the RSS fields are what was
	// resident in anonymous, file-backed and shared (shmem, tmpfs, SysV,
	// /dev/zero) pages.
	TotalVMBytes  uint64
	AnonRSSBytes  uint64
	FileRSSBytes  uint64
	ShmemRSSBytes uint64
	PgtablesBytes uint64
	OOMScoreAdj   int
	// Score is the badness an old kernel printed ("score S"), 0..1000 scaled.
	Score int
	// Message is what the kill line started with: "Out of memory",
	// "Memory cgroup out of memory", "No available memory (MPOL_BIND)" ...
	Message string
	// AlreadyExiting is true when the kernel printed "OOM victim N (x) is
	// already exiting. Skip killing the task": nothing was killed.
	AlreadyExiting bool

	HasUID, HasShmemRSS, HasPgtables, HasOOMScoreAdj, HasScore bool
}

// Task is one row of the task table. Page counts are converted to bytes.
type Task struct {
	PID, UID, TGID int
	TotalVMBytes   uint64
	RSSBytes       uint64
	// RSSAnonBytes, RSSFileBytes and RSSShmemBytes exist in 6.x tables only.
	RSSAnonBytes, RSSFileBytes, RSSShmemBytes uint64
	// PgtablesBytes is pgtables_bytes (4.15+) or (nr_ptes + nr_pmds) pages.
	PgtablesBytes uint64
	SwapBytes     uint64
	OOMScoreAdj   int
	Name          string
}

// Reaped is the oom_reaper line: what the victim still held after its
// anonymous memory was torn down.
type Reaped struct {
	PID                                       int
	Name                                      string
	AnonRSSBytes, FileRSSBytes, ShmemRSSBytes uint64
}
