package advise

import (
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// TestHostChecks runs Check on one host change at a time and expects one
// finding ID at one severity (absent: want < 0).
func TestHostChecks(t *testing.T) {
	const none = finding.Severity(-1)
	small := func(s *snapshot.Snapshot) { s.Postgres = append(s.Postgres, pgInstance(143*MiB, basePage, nil)) }
	for _, c := range []struct {
		name string
		id   string
		want finding.Severity
		mut  func(*snapshot.Snapshot)
		o    Options
	}{
		{"strict overcommit at 10%: nothing", "overcommit.mode", none, small, Options{}},
		{"mode 0 on a database host", "overcommit.mode", finding.Notice, func(s *snapshot.Snapshot) { small(s); s.Host.Sysctls["vm.overcommit_memory"] = "0" }, Options{}},
		{"mode 1 on a database host", "overcommit.mode", finding.Warning, func(s *snapshot.Snapshot) { small(s); s.Host.Sysctls["vm.overcommit_memory"] = "1" }, Options{}},
		{"mode 1 on a shared host", "overcommit.mode", finding.Info, func(s *snapshot.Snapshot) { small(s); s.Host.Sysctls["vm.overcommit_memory"] = "1" }, Options{SharedHost: true}},
		{"mode 0 without a database", "overcommit.mode", finding.Info, func(s *snapshot.Snapshot) { s.Host.Sysctls["vm.overcommit_memory"] = "0" }, Options{}},
		{"Committed_AS at 50%", "overcommit.near_limit", none, func(s *snapshot.Snapshot) {
			s.Host.Meminfo.CommittedASBytes = new(*s.Host.Meminfo.CommitLimitBytes / 2)
		}, Options{}},
		{"Committed_AS at 95%", "overcommit.near_limit", finding.Warning, func(s *snapshot.Snapshot) {
			s.Host.Meminfo.CommittedASBytes = new(*s.Host.Meminfo.CommitLimitBytes * 95 / 100)
		}, Options{}},
		{"Committed_AS past CommitLimit", "overcommit.near_limit", finding.Critical, func(s *snapshot.Snapshot) {
			s.Host.Meminfo.CommittedASBytes = new(*s.Host.Meminfo.CommitLimitBytes + GiB)
		}, Options{}},
		{"8 GiB swap on 32 GiB", "swap.large", finding.Notice, func(s *snapshot.Snapshot) { small(s); s.Host.Meminfo.SwapTotalBytes = new(8 * GiB) }, Options{}},
		{"2 GiB swap on 32 GiB", "swap.large", none, func(s *snapshot.Snapshot) { small(s); s.Host.Meminfo.SwapTotalBytes = new(2 * GiB) }, Options{}},
		{"swappiness 60 with swap", "swap.swappiness", finding.Notice, func(s *snapshot.Snapshot) {
			small(s)
			s.Host.Meminfo.SwapTotalBytes, s.Host.Sysctls["vm.swappiness"] = new(GiB), "60"
		}, Options{}},
		{"swappiness 60 without swap", "swap.swappiness", none, func(s *snapshot.Snapshot) { small(s); s.Host.Sysctls["vm.swappiness"] = "60" }, Options{}},
		{"6 GiB swapped out, 40% of RAM available", "swap.in_use", finding.Warning, swapped(6*GiB, 13*GiB), Options{}},
		{"6 GiB swapped out, 3% available: pressure, not swappiness", "swap.in_use", none, swapped(6*GiB, GiB), Options{}},
		{"512 MiB swapped out", "swap.in_use", none, swapped(512*MiB, 13*GiB), Options{}},
		{"no swap", "swap.in_use", none, swapped(0, 13*GiB), Options{}},
		{"THP always", "thp.enabled", finding.Warning, func(s *snapshot.Snapshot) { small(s); s.Host.THP.Enabled = "always" }, Options{}},
		{"THP madvise", "thp.enabled", none, small, Options{}},
		{"THP always, no database", "thp.enabled", finding.Info, func(s *snapshot.Snapshot) { s.Host.THP.Enabled = "always" }, Options{}},
		{"zone reclaim on 2 nodes", "numa.zone_reclaim", finding.Warning, func(s *snapshot.Snapshot) { s.Host.NUMANodes, s.Host.Sysctls["vm.zone_reclaim_mode"] = 2, "1" }, Options{}},
		{"zone reclaim on 1 node", "numa.zone_reclaim", finding.Notice, func(s *snapshot.Snapshot) { s.Host.Sysctls["vm.zone_reclaim_mode"] = "1" }, Options{}},
		{"test cluster's 8 MiB of page tables", "pagetables.now", none, small, Options{}},
		{"seed 000: 25 GB of page tables on 192 GB", "pagetables.now", finding.Critical, func(s *snapshot.Snapshot) {
			s.Host.Meminfo.MemTotalBytes, s.Host.Meminfo.PageTablesBytes = new(192*GiB), new(25*GiB)
		}, Options{}},
		{"1.5 GiB of page tables on 32 GiB", "pagetables.now", finding.Warning, func(s *snapshot.Snapshot) { s.Host.Meminfo.PageTablesBytes = new(1536 * MiB) }, Options{}},
		{"400 MiB of page tables on 32 GiB", "pagetables.now", finding.Notice, func(s *snapshot.Snapshot) { s.Host.Meminfo.PageTablesBytes = new(400 * MiB) }, Options{}},
		{"8 GiB pool unused on 32 GiB", "hugepages.pool_unused", finding.Warning, pool(4096, 4096, 0), Options{}},
		{"300 MiB pool unused", "hugepages.pool_unused", finding.Notice, pool(150, 150, 0), Options{}},
		{"20 MiB pool unused", "hugepages.pool_unused", finding.Info, pool(10, 10, 0), Options{}},
		{"pool half used, 1 GiB spare", "hugepages.pool_oversized", finding.Notice, pool(1000, 600, 100), Options{}},
		{"pool used to the last page", "hugepages.pool_oversized", none, pool(1000, 10, 10), Options{}},
		{"pool on one NUMA node", "hugepages.numa", finding.Notice, func(s *snapshot.Snapshot) {
			s.Host.NUMANodes = 2
			s.Host.HugePools = append(s.Host.HugePools, linux.HugePool{PageSizeBytes: 2 * MiB, Node: 0, Total: 1000}, linux.HugePool{PageSizeBytes: 2 * MiB, Node: 1})
		}, Options{}},
		{"pool split evenly", "hugepages.numa", none, func(s *snapshot.Snapshot) {
			s.Host.NUMANodes = 2
			s.Host.HugePools = append(s.Host.HugePools, linux.HugePool{PageSizeBytes: 2 * MiB, Node: 0, Total: 500}, linux.HugePool{PageSizeBytes: 2 * MiB, Node: 1, Total: 500})
		}, Options{}},
	} {
		s := hostSnap(32 * GiB)
		c.mut(s)
		got, ok := ids(Check(s, c.o))[c.id]
		switch {
		case c.want == none && ok:
			t.Errorf("%s: unexpected %s at %s", c.name, c.id, got)
		case c.want != none && (!ok || got != c.want):
			t.Errorf("%s: %s at %v (present %v), want %s", c.name, c.id, got, ok, c.want)
		}
	}
}

// swapped gives a database host 8 GiB of swap with used of it in use and
// avail bytes of MemAvailable.
func swapped(used, avail uint64) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.Postgres = append(s.Postgres, pgInstance(143*MiB, basePage, nil))
		m := &s.Host.Meminfo
		m.SwapTotalBytes, m.SwapFreeBytes, m.MemAvailableBytes = new(8*GiB), new(8*GiB-used), new(avail)
		s.Host.Sysctls["vm.swappiness"] = "60"
	}
}

// pool sets the host-wide 2 MiB pool.
func pool(total, free, rsvd uint64) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.Host.HugePools[0].Total, s.Host.HugePools[0].Free, s.Host.HugePools[0].Reserved = total, free, &rsvd
	}
}

func TestNUMASplitSettings(t *testing.T) {
	s := hostSnap(32 * GiB)
	s.Host.NUMANodes = 2
	s.Host.HugePools = append(s.Host.HugePools, linux.HugePool{PageSizeBytes: 2 * MiB, Node: 0, Total: 1001}, linux.HugePool{PageSizeBytes: 2 * MiB, Node: 1})
	f, ok := find(Check(s, Options{}), "hugepages.numa")
	if !ok || len(f.Settings) != 2 {
		t.Fatalf("numa finding %+v", f)
	}
	if f.Settings[0].Value != "501" || f.Settings[1].Value != "500" ||
		f.Settings[1].Name != "/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages" {
		t.Errorf("settings %+v", f.Settings)
	}
}

func TestEngineTHP(t *testing.T) {
	for _, c := range []struct {
		e       Engine
		want    string
		accepts map[string]bool
	}{
		{Engine{Name: finding.EnginePostgres, Major: 15}, "never", map[string]bool{"never": true, "madvise": true, "always": false}},
		{Engine{Name: finding.EngineMySQL, Major: 8}, "never", map[string]bool{"always": false}},
		{Engine{Name: finding.EngineMongoDB, Major: 7}, "never", map[string]bool{"always": false}},
		{Engine{Name: finding.EngineMongoDB, Major: 8}, "always", map[string]bool{"always": true, "never": false}},
	} {
		a := c.e.THP()
		if a.Want != c.want {
			t.Errorf("%s: want %s, advice %s", c.e, c.want, a.Want)
		}
		for v, ok := range c.accepts {
			if a.Accepts(v) != ok {
				t.Errorf("%s accepts %s: %v, want %v", c.e, v, !ok, ok)
			}
		}
	}
}

// TestMySQLOnlyHost: a host running only MariaDB is a database host too.
func TestMySQLOnlyHost(t *testing.T) {
	s := hostSnap(32 * GiB)
	s.Host.Sysctls["vm.overcommit_memory"] = "0"
	s.Host.THP.Enabled = "always"
	s.MySQL = []*mysql.Instance{{PID: 300, Flavor: mysql.MariaDB, Major: 10, Minor: 11}}
	got := ids(Check(s, Options{}))
	if got["overcommit.mode"] != finding.Notice || got["thp.enabled"] != finding.Warning {
		t.Errorf("MariaDB-only host: %v", got)
	}
}
