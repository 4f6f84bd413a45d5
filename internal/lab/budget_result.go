package lab

import (
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/memcg"
	"github.com/dbmem/dbmem/internal/units"
)

// BudgetSchema versions `dbmem lab budget --json`.
const BudgetSchema = "dbmem.lab.budget/v1"

// Configuration names, in the order they run.
const (
	ConfigSmall  = "uniform-small"
	ConfigDBMem  = "dbmem"
	ConfigPGTune = "pgtune"
)

// BudgetResult is one `lab budget` run.
type BudgetResult struct {
	Schema     string        `json:"schema"`
	StartedAt  time.Time     `json:"started_at"`
	FinishedAt time.Time     `json:"finished_at"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	Host       HostInfo      `json:"host"`
	Config     BudgetConfig  `json:"config"`
	Cgroup     *memcg.Group  `json:"cgroup,omitempty"`
	// Configs are the runs: uniform-small (also the measuring run), dbmem,
	// pgtune.
	Configs []*ConfigRun `json:"configs"`
	// Budget is dbmem's budget, computed by plan's code path from the
	// measuring run (nil until then).
	Budget   *budget.Result `json:"budget,omitempty"`
	Checks   []Check        `json:"checks"`
	Steps    []StepTime     `json:"steps"`
	Restored []HostChange   `json:"restored"`
	Notes    []string       `json:"notes,omitempty"`
}

// ConfigRun is the workload run under one configuration.
type ConfigRun struct {
	Name string `json:"name"`
	// Settings are what the configuration sets (ALTER SYSTEM), RoleSettings
	// its ALTER ROLE lines; Source says where they come from.
	Settings     []NamedValue `json:"settings"`
	RoleSettings []RoleValue  `json:"role_settings,omitempty"`
	Source       string       `json:"source"`
	// PeakPrivateBytes is the highest sum of Pss_Anon + VmPTE over the
	// cluster's processes sampled during the run (nil: not sampled).
	PeakPrivateBytes *uint64 `json:"peak_private_bytes"`
	PrivateSamples   int     `json:"private_samples"`
	// BudgetBytes is dbmem's budget (its total at its settings) for the
	// dbmem configuration; nil for the others.
	BudgetBytes *uint64 `json:"budget_bytes"`
	// CgroupPeakBytes is the cgroup's own peak (page cache included).
	CgroupPeakBytes *uint64 `json:"cgroup_peak_bytes,omitempty"`
	// TempBytes and TempFiles are pg_stat_database's growth over the run.
	TempBytes *uint64 `json:"temp_bytes"`
	TempFiles *uint64 `json:"temp_files"`
	// OOMKills is the cgroup's OOM kills during the run (memory.oom_control
	// or memory.events); nil when the kernel does not count them.
	OOMKills *uint64 `json:"oom_kills"`
	// OutOfMemoryErrors counts the server log's "out of memory" lines.
	OutOfMemoryErrors int             `json:"out_of_memory_errors"`
	ServerLog         []string        `json:"server_log,omitempty"`
	OLTP              OLTPRun         `json:"oltp"`
	Queries           []QueryStats    `json:"queries"`
	Samples           []PrivateSample `json:"samples,omitempty"`
	Error             string          `json:"error,omitempty"`
}

// NamedValue is one setting as written.
type NamedValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// RoleValue is one ALTER ROLE ... SET.
type RoleValue struct {
	Role  string `json:"role"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// OLTPRun is pgbench's summary for the OLTP role.
type OLTPRun struct {
	Clients      int     `json:"clients"`
	Transactions int64   `json:"transactions"`
	Failed       int64   `json:"failed"`
	TPS          float64 `json:"tps"`
	Error        string  `json:"error,omitempty"`
}

// QueryStats are the reporting role's runs of one query.
type QueryStats struct {
	Name        string  `json:"name"`
	Completed   int     `json:"completed"`
	Failed      int     `json:"failed"`
	MeanSeconds float64 `json:"mean_seconds"`
	MaxSeconds  float64 `json:"max_seconds"`
	FirstError  string  `json:"first_error,omitempty"`
}

// PrivateSample is one sample of the cluster's private memory.
type PrivateSample struct {
	Seconds      float64 `json:"s"`
	PrivateBytes uint64  `json:"private_bytes"`
}

// Check is one claim of the experiment and whether the run proves it.
type Check struct {
	Name   string `json:"name"`
	Pass   bool   `json:"pass"`
	Detail string `json:"detail"`
}

// Run returns the run named name, nil if none.
func (r *BudgetResult) Run(name string) *ConfigRun {
	for _, c := range r.Configs {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Passed is true when every check passed.
func (r *BudgetResult) Passed() bool {
	for _, c := range r.Checks {
		if !c.Pass {
			return false
		}
	}
	return len(r.Checks) > 0
}

// BudgetChecks states the experiment's claims about the dbmem run: no
// OOM kill, its peak within its budget (and the budget within its limit),
// fewer temp bytes than
// uniform-small, and the whole workload ran (its settings refused no
// connection, failed no query). Unknown figures fail.
func BudgetChecks(r *BudgetResult) []Check {
	d, s := r.Run(ConfigDBMem), r.Run(ConfigSmall)
	c := []Check{{Name: "dbmem: no OOM kill"}, {Name: "dbmem: peak private memory within its budget"},
		{Name: "dbmem: fewer temp bytes than " + ConfigSmall}, {Name: "dbmem: the whole workload ran"}}
	if d == nil {
		for i := range c {
			c[i].Detail = "the dbmem configuration did not run"
		}
		return c
	}
	switch {
	case d.OOMKills == nil:
		c[0].Detail = "the cgroup does not count OOM kills (memory.oom_control has no oom_kill: kernel 4.13+)"
	default:
		c[0].Pass = *d.OOMKills == 0 && d.Error == ""
		c[0].Detail = fmt.Sprintf("%d OOM kills in the cgroup", *d.OOMKills)
		if d.Error != "" {
			c[0].Detail += "; the run failed: " + d.Error
		}
	}
	c[1].Pass, c[1].Detail = withinBudget(d, r.Budget)
	switch {
	case s == nil || s.TempBytes == nil || d.TempBytes == nil:
		c[2].Detail = "temp bytes unknown"
	default:
		c[2].Pass = *d.TempBytes < *s.TempBytes
		c[2].Detail = fmt.Sprintf("%s vs %s (%s; pg_stat_database temp_bytes over each run)", units.Bytes(*d.TempBytes), units.Bytes(*s.TempBytes),
			units.Percent(*d.TempBytes, *s.TempBytes))
	}
	c[3].Pass, c[3].Detail = workloadRan(d)
	return c
}

// workloadRan: every pgbench client stayed, every report query
// completed, none failed (a connection refused by a lowered
// max_connections, an "out of memory", a session lost to a crash).
func workloadRan(d *ConfigRun) (bool, string) {
	done, failed := 0, 0
	for _, q := range d.Queries {
		done, failed = done+q.Completed, failed+q.Failed
	}
	ok := d.Error == "" && d.OLTP.Error == "" && d.OLTP.Failed == 0 && d.OLTP.Transactions > 0 && failed == 0 && done > 0
	return ok, fmt.Sprintf("%d OLTP transactions, %d clients aborted; %d report queries completed, %d failed", d.OLTP.Transactions, d.OLTP.Failed, done, failed)
}

// withinBudget: the peak at most the budget, and the budget itself within
// its limit (a budget over its limit bounds nothing).
func withinBudget(d *ConfigRun, b *budget.Result) (bool, string) {
	if d.PeakPrivateBytes == nil || d.BudgetBytes == nil {
		return false, "peak or budget unknown"
	}
	ok := *d.PeakPrivateBytes <= *d.BudgetBytes
	detail := fmt.Sprintf("peak %s (Pss_Anon + VmPTE, %d samples) vs budget %s (%s)", units.Bytes(*d.PeakPrivateBytes), d.PrivateSamples,
		units.Bytes(*d.BudgetBytes), units.Percent(*d.PeakPrivateBytes, *d.BudgetBytes))
	if b != nil && b.TotalBytes > b.LimitBytes {
		ok = false
		detail += fmt.Sprintf("; but the budget exceeds its own limit of %s (%s): it bounds nothing", units.Bytes(b.LimitBytes), b.LimitSource)
	}
	return ok, detail
}
