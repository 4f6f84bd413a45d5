package advise

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/cohost"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// small1G is the 1 GB VM of issue 13: 981 MiB of RAM and MariaDB with a
// 768 MiB buffer pool.
func small1G(largePages string) (*snapshot.Snapshot, *mysql.Instance) {
	s := hostSnap(1004864 * KiB)
	s.Host.Sysctls["vm.overcommit_memory"] = "0"
	in := mariadb(largePages)
	in.Settings["innodb_buffer_pool_size"] = mysql.Setting{Value: "805306368", Source: mysql.FromConfigFile}
	s.MySQL = []*mysql.Instance{in}
	return s, in
}

func TestPoolStarvesHost(t *testing.T) {
	for _, c := range []struct {
		name string
		mut  func(*snapshot.Snapshot)
		want finding.Severity // -1: none
	}{
		{"400 pages on 981 MiB, MemAvailable 1%, swapping", func(s *snapshot.Snapshot) {
			s.Host.HugePools[0].Total, s.Host.HugePools[0].Free = 400, 16
			s.Host.Meminfo.MemAvailableBytes = new(10 * MiB)
			s.Host.Meminfo.SwapTotalBytes, s.Host.Meminfo.SwapFreeBytes = new(GiB), new(600*MiB)
		}, finding.Critical},
		{"400 pages on 981 MiB without pressure: the worst case does not fit beside them", func(s *snapshot.Snapshot) {
			s.Host.HugePools[0].Total, s.Host.HugePools[0].Free = 400, 16
			s.Host.Meminfo.MemAvailableBytes = new(150 * MiB)
		}, finding.Warning},
		{"no pool", func(s *snapshot.Snapshot) { s.Host.Meminfo.MemAvailableBytes = new(10 * MiB) }, -1},
	} {
		s, _ := small1G("ON")
		c.mut(s)
		f, ok := find(Check(s, Options{}), "hugepages.pool_starves_host")
		switch {
		case c.want < 0 && ok:
			t.Errorf("%s: %s %s", c.name, f.Severity, f.Title)
		case c.want >= 0 && (!ok || f.Severity != c.want):
			t.Errorf("%s: %v (found %v), want %s", c.name, f.Severity, ok, c.want)
		case ok && !strings.Contains(f.Fix, "innodb_buffer_pool_size"):
			t.Errorf("%s: fix does not name the buffer pool: %s", c.name, f.Fix)
		}
	}
	// Oracle's SGA pool takes 82% of 126 GiB, 18 GiB available: an oversized
	// pool, not a starved host.
	s := hostSnap(132382720 * KiB)
	s.Software = []cohost.Software{oracle}
	s.Host.HugePools[0].Total, s.Host.HugePools[0].Free = 53342, 11904
	s.Host.Meminfo.MemAvailableBytes = new(18 * GiB)
	if f, ok := find(Check(s, Options{}), "hugepages.pool_starves_host"); ok {
		t.Errorf("Oracle host: %s %s", f.Severity, f.Title)
	}
}

func TestMySQLBufferPoolTooLarge(t *testing.T) {
	s, _ := small1G("OFF")
	s.Host.Meminfo.CommittedASBytes = new(1480 * MiB)
	if f, _ := find(Check(s, Options{}), "overcommit.mode"); f.Severity != finding.Info || !strings.Contains(f.Title, "cannot be switched on now") {
		t.Errorf("Committed_AS above RAM: overcommit.mode %s %q, want info: plan would not switch", f.Severity, f.Title)
	}
	f, ok := find(Check(s, Options{}), "mysql.buffer_pool_too_large")
	if !ok || f.Severity != finding.Warning || len(f.Settings) != 1 || f.Settings[0].Value != "402653184" {
		t.Fatalf("768 MiB on 981 MiB: %+v", f)
	}
	if _, ok := find(Check(s, Options{}), "mysql.large_pages_off"); ok {
		t.Error("large pages advised for a buffer pool that does not fit the VM")
	}
	for _, c := range []struct{ ram, limit uint64 }{{1004864 * KiB, 1004864 * KiB / 2}, {4 * GiB, 2 * GiB}, {32 * GiB, 24 * GiB}} {
		if l, _, _ := BufferPoolLimit(c.ram); l != c.limit {
			t.Errorf("limit for %d: %d, want %d", c.ram, l, c.limit)
		}
	}
}

// TestPlanSmallVM: on the 1 GB VM the plan reserves no pool for a buffer
// pool too large for the RAM; it lowers the buffer pool, and turns large
// pages off where they are on (the 400 pages return).
func TestPlanSmallVM(t *testing.T) {
	for _, lp := range []string{"OFF", "ON"} {
		s, my := small1G(lp)
		in := PlanInput{Host: HostFacts{RAMBytes: 1004864 * KiB, NUMANodes: 1, DefaultHugePageBytes: 2 * MiB,
			Now: &HostNow{Sysctls: s.Host.Sysctls, CommittedASBytes: new(1480 * MiB),
				Pools: []linux.HugePool{{PageSizeBytes: 2 * MiB, Node: -1, Reserved: new(uint64(0))}}}}}
		pi := PlanMySQL(my, 2*MiB, 4*KiB)
		if lp == "ON" {
			in.Host.Now.Pools[0].Total, in.Host.Now.Pools[0].Free = 400, 16
			pi.HeldPages = 384
		}
		in.Instances = []PlannedInstance{pi}
		r := Plan(in)
		if r.HugePages != nil {
			t.Errorf("large_pages=%s: a pool of %d pages planned on 981 MiB", lp, r.HugePages.PoolPages)
		}
		if s, _ := setting(r, finding.TargetMySQL, "innodb_buffer_pool_size"); s.Value != "402653184" {
			t.Errorf("large_pages=%s: buffer pool %+v", lp, s)
		}
		if lps, ok := setting(r, finding.TargetMySQL, "large_pages"); lp == "OFF" && ok || lp == "ON" && lps.Value != "OFF" {
			t.Errorf("large_pages=%s: planned %+v", lp, lps)
		}
		if s, ok := setting(r, finding.TargetSysctl, "vm.nr_hugepages"); lp == "ON" && s.Value != "0" || lp == "OFF" && ok {
			t.Errorf("large_pages=%s: vm.nr_hugepages %+v", lp, s)
		}
	}
}

// TestPlanPoolLeavesTooLittle: PostgreSQL with 1.2 GiB of shared memory on
// a 1.5 GiB VM: the pool would leave less than 1 GiB: no pool. On a host
// short of memory now a pool is never grown.
func TestPlanPoolLeavesTooLittle(t *testing.T) {
	in := seed001()
	in.Host.RAMBytes, in.Host.SwapBytes = 1536*MiB, 0
	in.Instances[0].Need = HugePageNeed{PageSizeBytes: 2 * MiB, Pages: 615, SharedBytes: 1229 * MiB, Exact: true}
	if r := Plan(in); r.HugePages != nil || !strings.Contains(strings.Join(r.Notes, " "), "would leave") {
		t.Errorf("pool planned on 1.5 GiB: %+v %v", r.HugePages, r.Notes)
	}
	// A host whose pools starve it (4 GiB of 4.8 GiB, 1900 pages of them
	// held by others): the plan never grows the pool, it keeps what others
	// hold, and says why.
	in = seed001()
	in.Host.Now = &HostNow{Sysctls: linux.Sysctls{"vm.nr_hugepages": "2000"}, CommittedASBytes: new(GiB),
		Pools: []linux.HugePool{{PageSizeBytes: 2 * MiB, Node: -1, Total: 2000, Free: 100, Reserved: new(uint64(0))}}}
	r := Plan(in)
	if s, _ := setting(r, finding.TargetSysctl, "vm.nr_hugepages"); s.Value != "1900" || !strings.Contains(strings.Join(r.Notes, " "), "would leave") {
		t.Errorf("pool on a host its pools starve: %+v, notes %v", s, r.Notes)
	}
}
