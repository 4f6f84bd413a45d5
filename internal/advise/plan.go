package advise

import (
	"sort"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/cohost"
	"github.com/dbmem/dbmem/internal/enginemem"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
)

// PlanSchema versions the --json form of a plan.
// v2: a number that was not read is omitted, never 0 (host.now's
// committed_as_bytes and commit_limit_bytes, default_huge_page_bytes, the
// pools' reserved and overcommit); pools say their source.
const PlanSchema = "dbmem.plan/v2"

// Plan defaults, stated in docs/check-plan.md.
const (
	// DefaultMarginPercent is added to an exact huge page need (postgres -C,
	// SHOW, the mapping): a minor upgrade or a preloaded library may grow the
	// segment a little.
	DefaultMarginPercent = 2.0
	// EstimateMarginPercent replaces it when the need is estimated from
	// settings (no PostgreSQL binary to ask).
	EstimateMarginPercent = 5.0
	// DefaultSwappiness for a database host (seed 001).
	DefaultSwappiness = 10
)

// PlanInput describes a host and its instances, measured (internal/plan
// builds it from a snapshot) or imagined (what-if flags).
type PlanInput struct {
	Source    string            `json:"source"`
	Host      HostFacts         `json:"host"`
	Instances []PlannedInstance `json:"instances"`
	Options   PlanOptions       `json:"options"`
	// Notes are caveats found while gathering the input.
	Notes []string `json:"notes,omitempty"`
	// Software is what runs beside the databases (cohost): Redis and a
	// JVM make strict overcommit unadvisable, MongoDB 8 wants THP.
	Software []cohost.Software `json:"software,omitempty"`
	// InContainer: dbmem runs in a container (a pod): kernel settings and
	// the huge page pool are the node's.
	InContainer bool `json:"in_container,omitempty"`
}

// HostFacts are the host's sizes.
type HostFacts struct {
	Name      string `json:"name,omitempty"`
	RAMBytes  uint64 `json:"ram_bytes"`
	SwapBytes uint64 `json:"swap_bytes"`
	// SwapUnknown says why the swap is unknown ("" when it is known):
	// SwapBytes is then not a value read, shown as null in JSON.
	SwapUnknown string `json:"swap_unknown,omitempty"`
	NUMANodes   int    `json:"numa_nodes"`
	// DefaultHugePageBytes is the kernel's default huge page size
	// (Hugepagesize), 0 (omitted) when unknown; HugePageSizes every size it
	// offers (nil: unknown).
	DefaultHugePageBytes uint64   `json:"default_huge_page_bytes,omitempty"`
	HugePageSizes        []uint64 `json:"huge_page_sizes,omitempty"`
	// Now is the host's current state; nil for a what-if.
	Now *HostNow `json:"now,omitempty"`
}

// HostNow is what the host is set to now. Committed_AS and CommitLimit
// are nil when /proc/meminfo did not have them.
type HostNow struct {
	Sysctls          linux.Sysctls    `json:"sysctls"`
	THP              linux.THP        `json:"thp"`
	CommittedASBytes *uint64          `json:"committed_as_bytes,omitempty"`
	CommitLimitBytes *uint64          `json:"commit_limit_bytes,omitempty"`
	Pools            []linux.HugePool `json:"pools"`
}

// PlannedInstance is one instance as it will run.
type PlannedInstance struct {
	Engine  Engine `json:"engine"`
	Subject string `json:"subject"`
	// Unit is its systemd unit.
	Unit string `json:"unit"`
	// Changes are engine settings the plan sets (what-if values such as
	// shared_buffers), by name.
	Changes map[string]string `json:"changes,omitempty"`
	// Current holds the current values of the settings the plan may touch.
	Current map[string]string `json:"current,omitempty"`
	Need    HugePageNeed      `json:"need"`
	// HeldPages is the pool pages it holds now (running in huge pages of
	// the planned size); SharedIn4KBytes is shared memory it now has in 4 KiB
	// pages, counted in Committed_AS until it moves to the pool.
	HeldPages       uint64   `json:"held_pages"`
	SharedIn4KBytes uint64   `json:"shared_in_4k_bytes"`
	Work            Workload `json:"workload"`
	// CurrentWork is a running PostgreSQL instance as it runs now (its
	// settings, its shared memory's page size): what dbmem check's
	// memory.worst_case computes from. Nil for a what-if or stopped server.
	CurrentWork *Workload `json:"current_workload,omitempty"`
	// GID is the group of the engine's OS user, for vm.hugetlb_shm_group
	// (SysV engines); -1 when unknown.
	GID int `json:"gid"`
	// MySQL is set for a MySQL/MariaDB server (PlanMySQL); Work is then unused.
	MySQL *MySQLPlanned `json:"mysql,omitempty"`
	// NoUnit says why no service unit runs the instance ("" when one does,
	// Unit): started with pg_ctl, it gets its configuration lines and the
	// words to apply them, never a drop-in for an unrelated unit.
	NoUnit string `json:"no_unit,omitempty"`
	// DataDir is a PostgreSQL instance's data directory ("" for a what-if);
	// Ctl is the command that restarts it without a unit ("pg_ctl -D
	// DIR", "pg_ctlcluster 15 main"), for the words NoUnit needs.
	DataDir string `json:"data_dir,omitempty"`
	Ctl     string `json:"ctl,omitempty"`
	// Container names the container the instance runs in ("" when none,
	// or dbmem runs in the same one): it has no systemd unit of its own.
	Container string `json:"container,omitempty"`
	// NoHuge says why Plan gives the instance no huge pages ("" when it
	// does): its cache is too large for the RAM, or a pool would leave too
	// little beside it. Set by Plan.
	NoHuge string `json:"no_huge,omitempty"`
	// Untrusted says why the instance is not a trusted server account's
	// ("" when it is): Plan leaves it out of every host-wide setting.
	Untrusted string `json:"untrusted,omitempty"`
	// Budget is what internal/budget needs for a PostgreSQL instance (its
	// settings, what was measured); Plan completes the host's limits. Nil:
	// no budget.
	Budget *budget.PGInput `json:"budget,omitempty"`
	// MySQLBudget is what budget.MySQL needs for a MySQL/MariaDB server.
	MySQLBudget *budget.MySQLInput `json:"mysql_budget,omitempty"`
}

// hugeAPI is how the instance maps huge pages: as measured or from its
// version for a MySQL/MariaDB server, else from its engine.
func (pi PlannedInstance) hugeAPI() HugePageAPI {
	if pi.Need.API != "" {
		return pi.Need.API
	}
	return pi.Engine.HugePageAPI()
}

// HugePageNeed is the pool an instance needs (enginemem's, one shape for
// every engine: MySQL's carries its allocations, API and SysV needs).
type HugePageNeed = enginemem.HugeNeed

// PlanOptions choose between the alternatives.
type PlanOptions struct {
	// PageSizeBytes is the huge page size to plan for (0: the host default,
	// else 2 MiB).
	PageSizeBytes uint64 `json:"page_size_bytes"`
	// MarginPercent is added to the need (default DefaultMarginPercent;
	// negative means none).
	MarginPercent float64 `json:"margin_percent"`
	// Reserve is the share of RAM left for the page cache (default 0.20).
	Reserve    float64 `json:"reserve"`
	Swappiness int     `json:"swappiness"`
	// Dynamic plans vm.nr_overcommit_hugepages instead of a reserved pool.
	Dynamic bool `json:"dynamic"`
	// NoHugePages plans without huge pages.
	NoHugePages bool `json:"no_huge_pages"`
	// SharedHost: other software runs here, no strict overcommit.
	SharedHost bool `json:"shared_host"`
	// Kubernetes adds the pod's container resources (hugepages-2Mi and
	// memory requests and limits). plan.Build sets it when dbmem or a
	// database runs in a container; on a bare host they are noise unless
	// asked for (--format kubernetes).
	Kubernetes bool `json:"kubernetes,omitempty"`
}

// PlanResult is the joint settings and the arithmetic behind them.
type PlanResult struct {
	Schema       string              `json:"schema"`
	Source       string              `json:"source"`
	Host         HostFacts           `json:"host"`
	HugePages    *HugePagePlan       `json:"huge_pages,omitempty"`
	Overcommit   *OvercommitPlan     `json:"overcommit,omitempty"`
	WorstCases   []InstanceWorstCase `json:"worst_cases"`
	Settings     []finding.Setting   `json:"settings"`
	Alternatives []finding.Setting   `json:"alternatives,omitempty"`
	// Budget is the PostgreSQL instance's memory budget (one instance), or
	// the MySQL/MariaDB server's when there is no PostgreSQL budget.
	Budget *budget.Result `json:"budget,omitempty"`
	Notes  []string       `json:"notes,omitempty"`
	// NotPlanned are the settings an input was missing for, each with the
	// input, why it is needed and the flag that gives it.
	NotPlanned []NotPlanned `json:"not_planned,omitempty"`
	// LeftOut are the instances of untrusted accounts: reported, never
	// planned for (see leaveOutUntrusted).
	LeftOut []LeftOut `json:"left_out,omitempty"`
}

// InstanceWorstCase is an instance's worst case once the plan is applied:
// with the planned huge pages, page tables are those of the planned page
// size.
type InstanceWorstCase struct {
	Subject string `json:"subject"`
	WorstCase
	// SharedName says what SharedBytes is: "shared" (PostgreSQL's main
	// segment) or "in huge pages" (MySQL's large-page buffers).
	SharedName string `json:"shared_name"`
	// Now is the worst case as the instance runs now (current settings and
	// page size: what dbmem check's memory.worst_case shows) when it
	// differs; NowBasis says how it differs.
	Now      *WorstCase `json:"now,omitempty"`
	NowBasis string     `json:"now_basis,omitempty"`
}

// Plan computes the settings. It is pure.
func Plan(in PlanInput) PlanResult {
	o := withPlanDefaults(in)
	in.Options = o
	r := PlanResult{Schema: PlanSchema, Source: in.Source, Host: in.Host, WorstCases: []InstanceWorstCase{},
		Notes: append([]string(nil), in.Notes...)}
	in.Instances = leaveOutUntrusted(in.Instances, &r)
	if !o.NoHugePages && len(in.Instances) > 0 {
		if in.Instances, r.HugePages = guardPool(in); r.HugePages != nil {
			r.Settings = append(r.Settings, hugePageSettings(in, *r.HugePages, &r)...)
		} else {
			r.Settings = append(r.Settings, releasePool(in, &r)...)
		}
	}
	r.Settings = append(r.Settings, overcommitSettings(in, r.HugePages, &r)...)
	r.Settings = append(r.Settings, kernelSettings(in, &r)...)
	in.Instances = planBudgets(in, r.HugePages, &r)
	in.Instances = planMySQLBudget(in, r.HugePages, &r)
	for _, pi := range in.Instances {
		hp := r.HugePages
		if pi.NoHuge != "" {
			hp = nil
			r.Settings = append(r.Settings, forInstance(pi, noHugeSettings(in, pi))...)
		}
		r.Settings = append(r.Settings, forInstance(pi, instanceSettings(in, pi, hp, &r))...)
		r.WorstCases = append(r.WorstCases, plannedWorstCase(in, pi, hp, &r))
	}
	sortSettings(r.Settings)
	return r
}

func withPlanDefaults(in PlanInput) PlanOptions {
	o := in.Options
	if o.PageSizeBytes == 0 {
		o.PageSizeBytes = in.Host.DefaultHugePageBytes
	}
	if o.PageSizeBytes == 0 {
		o.PageSizeBytes = 2 * MiB
	}
	if o.MarginPercent == 0 {
		o.MarginPercent = DefaultMarginPercent
	}
	if o.Reserve == 0 {
		o.Reserve = DefaultReserve
	}
	if o.Swappiness == 0 {
		o.Swappiness = DefaultSwappiness
	}
	return o
}

var targetOrder = map[finding.Target]int{finding.TargetSysctl: 0, finding.TargetSysfs: 1, finding.TargetPostgres: 2, finding.TargetPostgresRole: 2, finding.TargetMySQL: 3,
	finding.TargetSystemd: 4, finding.TargetKernelArgs: 5, finding.TargetKubernetes: 6}

// sortSettings groups settings by target, keeping the order within each.
func sortSettings(s []finding.Setting) {
	sort.SliceStable(s, func(i, j int) bool { return targetOrder[s[i].Target] < targetOrder[s[j].Target] })
}

// current returns a sysctl's value now, "" for a what-if.
func (in PlanInput) current(name string) string {
	if in.Host.Now == nil {
		return ""
	}
	return in.Host.Now.Sysctls[name]
}
