package advise

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/units"
)

// seed001 is the 5 GB machine of seed 001 with 1 GB shared_buffers and 500
// connections; PostgreSQL 15 says it needs 547 pages of 2 MiB.
func seed001() PlanInput {
	return PlanInput{
		Source: "seed 001",
		Host:   HostFacts{RAMBytes: 5016896 * KiB, SwapBytes: 974844 * KiB, NUMANodes: 1, DefaultHugePageBytes: 2 * MiB},
		Instances: []PlannedInstance{{
			Engine: Engine{Name: finding.EnginePostgres, Major: 15}, Subject: "pg", Unit: "postgresql@15-main.service", GID: -1,
			Changes: map[string]string{"shared_buffers": "1GB", "max_connections": "500"},
			Need:    HugePageNeed{PageSizeBytes: 2 * MiB, Pages: 547, SharedBytes: 1093 * MiB, Source: "postgres -C", Exact: true},
			Work:    Workload{MaxConnections: 500, WorkMemBytes: 4 * MiB, HashMemMultiplier: 2, SharedBytes: 1093 * MiB},
		}},
	}
}

func setting(r PlanResult, t finding.Target, name string) (finding.Setting, bool) {
	for _, s := range r.Settings {
		if s.Target == t && s.Name == name {
			return s, true
		}
	}
	return finding.Setting{}, false
}

func TestPlanSeed001(t *testing.T) {
	in := seed001()
	in.Options.Kubernetes = true
	r := Plan(in)
	hp := r.HugePages
	if hp == nil || hp.NeedPages != 547 || hp.MarginPages != 11 || hp.PoolPages != 558 || hp.Boot {
		t.Fatalf("huge pages %+v", hp)
	}
	want := map[string]string{"vm.nr_hugepages": "558", "vm.overcommit_memory": "2", "vm.overcommit_ratio": "48", "vm.swappiness": "10"}
	for name, v := range want {
		if s, ok := setting(r, finding.TargetSysctl, name); !ok || s.Value != v || s.Formula == "" {
			t.Errorf("%s = %q (%v), want %s", name, s.Value, ok, v)
		}
	}
	if s, _ := setting(r, finding.TargetPostgres, "huge_pages"); s.Value != "on" || s.Unit != "postgresql@15-main.service" {
		t.Errorf("huge_pages %+v", s)
	}
	if s, _ := setting(r, finding.TargetPostgres, "shared_buffers"); s.Value != "1GB" {
		t.Errorf("planned shared_buffers %+v", s)
	}
	if s, _ := setting(r, finding.TargetSysfs, "/sys/kernel/mm/transparent_hugepage/enabled"); s.Value != "never" {
		t.Errorf("THP %+v", s)
	}
	if s, _ := setting(r, finding.TargetKubernetes, "resources.limits.hugepages-2Mi"); s.Value != "1116Mi" {
		t.Errorf("kubernetes hugepages %+v", s)
	}
	for _, s := range Plan(seed001()).Settings {
		if s.Target == finding.TargetKubernetes {
			t.Errorf("kubernetes setting without Options.Kubernetes (a bare host): %+v", s)
		}
	}
	var env []string
	for _, s := range r.Settings {
		if s.Target == finding.TargetSystemd {
			env = append(env, s.Name+"="+s.Value)
		}
	}
	if strings.Join(env, " ") != "OOMScoreAdjust=-1000 Environment=PG_OOM_ADJUST_FILE=/proc/self/oom_score_adj Environment=PG_OOM_ADJUST_VALUE=0" {
		t.Errorf("systemd settings %v", env)
	}
	if _, ok := setting(r, finding.TargetSysctl, "vm.zone_reclaim_mode"); ok {
		t.Error("zone_reclaim_mode planned on a single-node what-if")
	}
	if len(r.Alternatives) != 2 || r.Alternatives[1].Name != "vm.nr_overcommit_hugepages" || r.Alternatives[1].Value != "558" {
		t.Errorf("alternatives %+v", r.Alternatives)
	}
	for i := 1; i < len(r.Settings); i++ {
		if targetOrder[r.Settings[i].Target] < targetOrder[r.Settings[i-1].Target] {
			t.Errorf("settings not grouped by target at %d", i)
		}
	}
}

// TestPlanSwappinessNeedsSwap: without swap, vm.swappiness changes
// nothing and is not planned.
func TestPlanSwappinessNeedsSwap(t *testing.T) {
	in := seed001()
	in.Host.SwapBytes = 0
	if s, ok := setting(Plan(in), finding.TargetSysctl, "vm.swappiness"); ok {
		t.Errorf("vm.swappiness planned without swap: %+v", s)
	}
	if _, ok := setting(Plan(seed001()), finding.TargetSysctl, "vm.swappiness"); !ok {
		t.Error("vm.swappiness not planned with 952 MiB of swap")
	}
}

func TestPlanWithoutHugePages(t *testing.T) {
	in := seed001()
	in.Options.NoHugePages = true
	r := Plan(in)
	if r.HugePages != nil {
		t.Error("huge pages planned")
	}
	if s, _ := setting(r, finding.TargetSysctl, "vm.overcommit_ratio"); s.Value != "60" {
		t.Errorf("ratio without huge pages %q, want 60 (seed 001: 60.6 rounded down so the 20%% reserve holds)", s.Value)
	}
	if _, ok := setting(r, finding.TargetPostgres, "huge_pages"); ok {
		t.Error("huge_pages=on without huge pages")
	}
	if len(r.WorstCases) != 1 || r.WorstCases[0].PageTablesBytes < 500*1093*MiB/512 {
		t.Errorf("worst case page tables in 4 KiB pages: %+v", r.WorstCases)
	}
}

func TestPlanDynamicAndMargin(t *testing.T) {
	in := seed001()
	in.Options.Dynamic, in.Options.MarginPercent = true, -1
	r := Plan(in)
	if s, _ := setting(r, finding.TargetSysctl, "vm.nr_overcommit_hugepages"); s.Value != "547" {
		t.Errorf("dynamic pool %+v", s)
	}
	if s, _ := setting(r, finding.TargetSysctl, "vm.nr_hugepages"); s.Value != "0" {
		t.Errorf("reserved pool with --dynamic %+v", s)
	}
	in.Instances[0].Need.Exact = false
	in.Options.Dynamic, in.Options.MarginPercent = false, 0
	if hp := Plan(in).HugePages; hp.MarginPercent != EstimateMarginPercent || hp.MarginPages != 27 {
		t.Errorf("estimated need: margin %g%% = %d pages, want 5%% of 1093 MiB = 27 (574 pages in all)", hp.MarginPercent, hp.MarginPages)
	}
}

func TestPlanGigantic(t *testing.T) {
	in := seed001()
	in.Host.HugePageSizes = []uint64{2 * MiB}
	in.Options.PageSizeBytes, in.Options.Kubernetes = GiB, true
	in.Instances[0].Need = HugePageNeed{PageSizeBytes: 2 * MiB, Pages: 547, SharedBytes: 1093 * MiB, Exact: true}
	r := Plan(in)
	var args []string
	for _, s := range r.Settings {
		if s.Target == finding.TargetKernelArgs {
			args = append(args, s.Name+"="+s.Value)
		}
	}
	if strings.Join(args, " ") != "hugepagesz=1G hugepages=2" {
		t.Errorf("kernel command line %v, want hugepagesz=1G hugepages=2 (1093 MiB + 2%% = 1115 MiB: 2 pages; a margin in whole pages would add a third)", args)
	}
	if s, _ := setting(r, finding.TargetPostgres, "huge_page_size"); s.Value != "1GB" {
		t.Errorf("huge_page_size %+v", s)
	}
	if _, ok := setting(r, finding.TargetSysctl, "vm.nr_hugepages"); ok {
		t.Error("vm.nr_hugepages planned for 1 GiB pages")
	}
	if s, _ := setting(r, finding.TargetKubernetes, "resources.requests.hugepages-1Gi"); s.Value != "2Gi" {
		t.Errorf("kubernetes %+v", s)
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "no 1G huge pages") {
		t.Errorf("notes %v lack the missing page size", r.Notes)
	}
	in.Instances[0].Engine.Major = 13
	if s := Plan(in).Settings; !hasArg(s, "default_hugepagesz") {
		t.Error("PostgreSQL 13 needs default_hugepagesz=1G")
	}
}

func hasArg(s []finding.Setting, name string) bool {
	for _, x := range s {
		if x.Target == finding.TargetKernelArgs && x.Name == name {
			return true
		}
	}
	return false
}

func TestPlanNUMAAndHostNow(t *testing.T) {
	in := seed001()
	in.Host.NUMANodes = 2
	in.Host.Now = &HostNow{
		Sysctls:          linux.Sysctls{"vm.nr_hugepages": "100", "vm.zone_reclaim_mode": "1", "vm.overcommit_kbytes": "1024", "vm.overcommit_ratio": "50"},
		CommittedASBytes: new(2 * GiB),
		Pools:            []linux.HugePool{{PageSizeBytes: 2 * MiB, Node: -1, Total: 100, Free: 60, Reserved: new(uint64(0))}},
	}
	in.Instances[0].SharedIn4KBytes = 1093 * MiB
	r := Plan(in)
	if r.HugePages.OtherPages != 40 || r.HugePages.PoolPages != 598 || len(r.HugePages.PerNode) != 2 {
		t.Fatalf("pool %+v: want 40 pages kept for their current users", r.HugePages)
	}
	if s, _ := setting(r, finding.TargetSysfs, "/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages"); s.Value != "299" {
		t.Errorf("node 1 %+v", s)
	}
	if s, _ := setting(r, finding.TargetSysctl, "vm.zone_reclaim_mode"); s.Value != "0" || s.Current != "1" {
		t.Errorf("zone reclaim %+v", s)
	}
	if s, _ := setting(r, finding.TargetSysctl, "vm.overcommit_kbytes"); s.Value != "0" {
		t.Errorf("overcommit_kbytes %+v", s)
	}
	if s, _ := setting(r, finding.TargetSysctl, "vm.nr_hugepages"); s.Current != "100" {
		t.Errorf("current pool %+v", s)
	}
	in.Host.Now.CommittedASBytes = new(4 * GiB)
	if r := Plan(in); r.Overcommit != nil || !strings.Contains(strings.Join(r.Notes, " "), "fork and malloc fail") {
		t.Errorf("Committed_AS 4 GiB (3 GiB after) over a 2.7 GiB CommitLimit: strict overcommit planned %+v, notes %v", r.Overcommit, r.Notes)
	}
	in.Options.SharedHost = true
	if r := Plan(in); r.Overcommit != nil {
		t.Error("strict overcommit on a shared host")
	}
}

// TestPlanSysVEngine: the memlock limit and vm.hugetlb_shm_group are
// planned only for engines that map huge pages with shmget(SHM_HUGETLB):
// Oracle, MySQL before 8.0, MariaDB before 10.5.
func TestPlanSysVEngine(t *testing.T) {
	for _, c := range []struct {
		e    Engine
		sysv bool
	}{
		{Engine{Name: finding.EngineMySQL, Major: 5, Minor: 7}, true},
		{Engine{Name: finding.EngineMariaDB, Major: 10, Minor: 4}, true},
		{Engine{Name: finding.EngineOracle, Major: 19}, true},
		{Engine{Name: finding.EngineMySQL, Major: 8, Minor: 0}, false},
		{Engine{Name: finding.EngineMySQL, Major: 8, Minor: 4}, false},
		{Engine{Name: finding.EngineMariaDB, Major: 10, Minor: 11}, false},
	} {
		in := seed001()
		in.Instances[0].Engine = c.e
		in.Instances[0].GID = 27
		r := Plan(in)
		group, hasGroup := setting(r, finding.TargetSysctl, "vm.hugetlb_shm_group")
		memlock, hasMemlock := setting(r, finding.TargetSystemd, "LimitMEMLOCK")
		if hasGroup != c.sysv || hasMemlock != c.sysv {
			t.Errorf("%s: hugetlb_shm_group %v, LimitMEMLOCK %v; want both %v", c.e, hasGroup, hasMemlock, c.sysv)
		}
		if c.sysv && (group.Value != "27" || memlock.Value != "infinity") {
			t.Errorf("%s: hugetlb_shm_group %+v, LimitMEMLOCK %+v", c.e, group, memlock)
		}
		if _, ok := setting(r, finding.TargetPostgres, "huge_pages"); ok {
			t.Errorf("%s: PostgreSQL settings", c.e)
		}
	}
}

func TestEstimatePostgresShared(t *testing.T) {
	// PostgreSQL 15.20 `postgres -C shared_memory_size` (MB) on this host.
	for _, c := range []struct {
		name string
		z    PGSizing
		mb   uint64
	}{
		{"defaults", PGSizing{SharedBuffersBytes: 128 * MiB, MaxConnections: 100}, 143},
		{"16 GB", PGSizing{SharedBuffersBytes: 16 * GiB, MaxConnections: 100}, 16771},
		{"64 GB", PGSizing{SharedBuffersBytes: 64 * GiB, MaxConnections: 100}, 67004},
		{"5000 connections", PGSizing{SharedBuffersBytes: 128 * MiB, MaxConnections: 5000}, 378},
		{"4096 locks", PGSizing{SharedBuffersBytes: 128 * MiB, MaxConnections: 100, MaxLocksPerXact: 4096}, 325},
		{"wal_buffers 256MB", PGSizing{SharedBuffersBytes: 128 * MiB, MaxConnections: 100, WalBuffersBytes: 256 * MiB}, 395},
	} {
		z := c.z
		def := func(p *int, v int) {
			if *p == 0 {
				*p = v
			}
		}
		def(&z.AutovacuumWorkers, 3)
		def(&z.MaxWorkerProcesses, 8)
		def(&z.MaxWalSenders, 10)
		def(&z.MaxLocksPerXact, 64)
		def(&z.MaxPredLocksPerXact, 64)
		got, f := EstimatePostgresShared(z)
		if d := float64(got)/float64(c.mb*MiB) - 1; d < -0.01 || d > 0.04 {
			t.Errorf("%s: estimate %s, PostgreSQL says %d MB (%+.1f%%): %s", c.name, units.Bytes(got), c.mb, d*100, f)
		}
	}
}

// TestPlanCountsEveryPool: pools of other sizes (reserved at boot, or held
// by software dbmem does not plan) stay, and CommitLimit is the kernel's:
// RAM minus every pool.
func TestPlanCountsEveryPool(t *testing.T) {
	in := seed001()
	in.Host.RAMBytes, in.Host.SwapBytes = 16*GiB, 0
	in.Host.Now = &HostNow{Sysctls: linux.Sysctls{"vm.overcommit_memory": "0"}, CommittedASBytes: new(GiB), Pools: []linux.HugePool{
		{PageSizeBytes: 2 * MiB, Node: -1, Reserved: new(uint64(0))},
		{PageSizeBytes: GiB, Node: -1, Total: 2, Free: 2, Reserved: new(uint64(0))},
	}}
	r := Plan(in)
	op := r.Overcommit
	if op == nil || op.PoolsBytes != r.HugePages.PoolBytes+2*GiB {
		t.Fatalf("pools counted %+v, want the planned %d pages + 2 GiB of 1 GiB pages", op, r.HugePages.PoolPages)
	}
	if op.CommitLimitBytes != CommitLimit(16*GiB, 0, op.PoolsBytes, op.Ratio) {
		t.Errorf("CommitLimit %s is not the kernel's for ratio %d", units.Bytes(op.CommitLimitBytes), op.Ratio)
	}
	if s, _ := setting(r, finding.TargetSysctl, "vm.overcommit_ratio"); !strings.Contains(s.Formula, "kept 2 x 1 GiB") {
		t.Errorf("formula does not name the pool kept: %s", s.Formula)
	}
	// No instance to plan: the pools are all kept, and counted.
	in.Instances = nil
	if r := Plan(in); r.Overcommit == nil || r.Overcommit.PoolsBytes != 2*GiB {
		t.Errorf("without instances: %+v", r.Overcommit)
	}
}

// TestPlanStrictHostKeepsCommitted: pg12-strict-near-limit (16 GB, ratio
// 95, Committed_AS 17708860 kB): the reserve's ratio (54) would put
// CommitLimit under what is committed; the ratio stays 95.
func TestPlanStrictHostKeepsCommitted(t *testing.T) {
	in := PlanInput{Host: HostFacts{RAMBytes: 16380384 * KiB, SwapBytes: 4029436 * KiB, NUMANodes: 1, DefaultHugePageBytes: 2 * MiB,
		Now: &HostNow{Sysctls: linux.Sysctls{"vm.overcommit_memory": "2", "vm.overcommit_ratio": "95", "vm.overcommit_kbytes": "0"},
			CommittedASBytes: new(17708860 * KiB)}}}
	r := Plan(in)
	op := r.Overcommit
	if op == nil || op.Ratio != 95 || op.CommitLimitBytes < 17708860*KiB {
		t.Fatalf("strict host: %+v, want ratio 95 and CommitLimit above Committed_AS", op)
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "kept at 95") {
		t.Errorf("notes %v", r.Notes)
	}
	in.Host.Now.Sysctls["vm.overcommit_memory"] = "0"
	if r := Plan(in); r.Overcommit != nil {
		t.Errorf("mode 0 host with Committed_AS above the reserve's CommitLimit: strict overcommit planned %+v", r.Overcommit)
	}
}
