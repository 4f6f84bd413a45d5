package advise

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
)

// jointHost is a 64 GiB host with 4 GiB of swap and the seed-001
// PostgreSQL instance (547 pages, exact) beside the given MySQL/MariaDB
// servers.
func jointHost(servers ...*mysql.Instance) PlanInput {
	in := seed001()
	in.Host.RAMBytes, in.Host.SwapBytes = 64*GiB, 4*GiB
	for _, s := range servers {
		in.Instances = append(in.Instances, PlanMySQL(s, 2*MiB, 4*KiB))
	}
	return in
}

// TestPlanJointPool: a MariaDB 10.11 with large_pages=OFF and a 1 GiB
// buffer pool beside PostgreSQL. Its large-page buffers (512 + 8 + 64 + 64
// pages) carry their own 10% margin (64); the plan's 2% goes on
// PostgreSQL's 547 only (11). vm.overcommit_ratio is computed around the
// joint pool.
func TestPlanJointPool(t *testing.T) {
	r := Plan(jointHost(mariadb("OFF")))
	hp := r.HugePages
	if hp == nil || hp.NeedPages != 547+712 || hp.MarginPages != 11 || hp.PoolPages != 547+712+11 {
		t.Fatalf("pool %+v, want 547 + 712 (648 + 64 own margin) + 11", hp)
	}
	for _, want := range []string{"mariadb 10.11 :3306", "buffer pool 512 + log buffer 8 + key buffer 64 + Aria page cache 64 + own margin 64",
		"2% of the bytes of the needs without a margin of their own"} {
		if !strings.Contains(hp.Formula, want) {
			t.Errorf("pool formula lacks %q: %s", want, hp.Formula)
		}
	}
	pool := hp.PoolPages * 2 * MiB
	ratio, _, _ := OvercommitRatio(64*GiB, 4*GiB, pool, DefaultReserve)
	if s, _ := setting(r, finding.TargetSysctl, "vm.overcommit_ratio"); s.Value != strconv.Itoa(ratio) || r.Overcommit.CommitLimitBytes != CommitLimit(64*GiB, 4*GiB, pool, ratio) {
		t.Errorf("overcommit_ratio %+v, want %d (pool of %d pages)", s, ratio, hp.PoolPages)
	}
	lp, ok := setting(r, finding.TargetMySQL, "large_pages")
	if !ok || lp.Value != "ON" || lp.Current != "OFF" || lp.Unit != "mariadb.service" || !strings.Contains(lp.Formula, "MAP_HUGETLB needs only free pages") {
		t.Errorf("large_pages %+v", lp)
	}
	for _, name := range []string{"vm.hugetlb_shm_group", "kernel.shmmax", "kernel.shmall"} {
		if s, ok := setting(r, finding.TargetSysctl, name); ok {
			t.Errorf("mmap server: %+v planned", s)
		}
	}
	if s, ok := setting(r, finding.TargetSystemd, "LimitMEMLOCK"); ok {
		t.Errorf("mmap server: %+v planned", s)
	}
	if _, ok := setting(r, finding.TargetPostgres, "huge_pages"); !ok {
		t.Error("PostgreSQL's huge_pages=on is missing from the joint plan")
	}
}

// TestPlanMySQLByAPI: SysV servers (MySQL 5.7, MariaDB 10.4) get the group,
// the memlock limit and shmmax/shmall where the host's are lower; mmap
// servers (MySQL 8.0, 8.4, MariaDB 10.5, 10.11, 11.4) none of them.
func TestPlanMySQLByAPI(t *testing.T) {
	for _, c := range []struct {
		flavor       mysql.Flavor
		major, minor int
		sysv         bool
	}{
		{mysql.MySQL, 5, 7, true}, {mysql.MariaDB, 10, 4, true}, {mysql.MySQL, 5, 6, true},
		{mysql.MySQL, 8, 0, false}, {mysql.MySQL, 8, 4, false}, {mysql.MariaDB, 10, 5, false},
		{mysql.MariaDB, 10, 11, false}, {mysql.MariaDB, 11, 4, false},
	} {
		srv := mariadb("OFF")
		srv.Flavor, srv.Major, srv.Minor = c.flavor, c.major, c.minor
		srv.Settings = mysql.Defaults(c.flavor)
		srv.Settings["innodb_buffer_pool_size"] = mysql.Setting{Value: "1073741824", Source: mysql.FromServer}
		// No cgroup read: the packages' unit, as mysql.RunningUnit names it where it is installed.
		srv.Cgroup, srv.Unit = nil, map[mysql.Flavor]string{mysql.MySQL: "mysql.service", mysql.MariaDB: "mariadb.service"}[c.flavor]
		in := jointHost(srv)
		// shmmax below the buffer pool, shmall far above what is needed.
		in.Host.Now = &HostNow{Sysctls: linux.Sysctls{"kernel.shmmax": "33554432", "kernel.shmall": "18446744073692774399", "vm.hugetlb_shm_group": "0"}}
		r := Plan(in)
		name := srv.Name()
		group, hasGroup := setting(r, finding.TargetSysctl, "vm.hugetlb_shm_group")
		memlock, hasMemlock := setting(r, finding.TargetSystemd, "LimitMEMLOCK")
		shmmax, hasShmmax := setting(r, finding.TargetSysctl, "kernel.shmmax")
		_, hasShmall := setting(r, finding.TargetSysctl, "kernel.shmall")
		if hasGroup != c.sysv || hasMemlock != c.sysv || hasShmmax != c.sysv || hasShmall {
			t.Errorf("%s: group %v, memlock %v, shmmax %v, shmall %v; want the first three %v, never shmall (the host's is larger)",
				name, hasGroup, hasMemlock, hasShmmax, hasShmall, c.sysv)
		}
		lp, _ := setting(r, finding.TargetMySQL, "large_pages")
		if !c.sysv {
			if !strings.Contains(lp.Formula, "no vm.hugetlb_shm_group, LimitMEMLOCK or kernel.shmmax/shmall") {
				t.Errorf("%s: large_pages formula does not say why nothing else is needed: %s", name, lp.Formula)
			}
			continue
		}
		unit := map[mysql.Flavor]string{mysql.MySQL: "mysql.service", mysql.MariaDB: "mariadb.service"}[c.flavor]
		if group.Value != "110" || group.Current != "0" || memlock.Value != "infinity" || memlock.Unit != unit ||
			shmmax.Value != "1073741824" || shmmax.Current != "33554432" || !strings.Contains(lp.Formula, "SHM_HUGETLB also needs") {
			t.Errorf("%s: group %+v, memlock %+v, shmmax %+v, large_pages %+v", name, group, memlock, shmmax, lp)
		}
	}
}

// TestPlanMySQLWhatIfSysV: on a what-if host the gid and the kernel's
// shm limits are unknown: notes say what to set instead of values.
func TestPlanMySQLWhatIfSysV(t *testing.T) {
	srv := mariadb("OFF")
	srv.Flavor, srv.Major, srv.Minor, srv.Creds = mysql.MySQL, 5, 7, nil
	r := Plan(jointHost(srv))
	notes := strings.Join(r.Notes, "\n")
	if _, ok := setting(r, finding.TargetSysctl, "vm.hugetlb_shm_group"); ok || !strings.Contains(notes, "set vm.hugetlb_shm_group to the gid") ||
		!strings.Contains(notes, "kernel.shmmax must be at least 1073741824") {
		t.Errorf("notes %s", notes)
	}
}

// TestPlanMySQLHeldPages: a server already holding 115 huge pages (its
// key cache and Aria page cache) keeps them in its need, not in "in use
// by others"; the 40 pages another process holds stay in the pool. Its
// measured need is what it holds plus the buffer pool left in 4 KiB pages.
func TestPlanMySQLHeldPages(t *testing.T) {
	in := jointHost(mariadb("ON"))
	in.Host.Now = &HostNow{Sysctls: linux.Sysctls{}, Pools: []linux.HugePool{{PageSizeBytes: 2 * MiB, Node: -1, Total: 600, Free: 445, Reserved: new(uint64(0))}}}
	my := in.Instances[1]
	if my.HeldPages != 62+53 || my.Need.Pages != 627+62 || my.SharedIn4KBytes != GiB {
		t.Fatalf("held %d, need %d, 4 KiB %d", my.HeldPages, my.Need.Pages, my.SharedIn4KBytes)
	}
	if hp := Plan(in).HugePages; hp.OtherPages != 40 || hp.PoolPages != 547+689+11+40 {
		t.Errorf("pool %+v", hp)
	}
}

// TestPlanMySQLWorstCase: the large-page buffers leave private memory
// (Committed_AS) for the pool under the plan and stay in it without huge
// pages; page tables are those of one process mapping them once.
func TestPlanMySQLWorstCase(t *testing.T) {
	srv := mariadb("OFF")
	srv.Settings["max_connections"] = mysql.Setting{Value: "100", Source: mysql.FromServer}
	wcm := mysql.WorstCaseIn(srv, 0)
	buffers := uint64(GiB + 16*MiB + 128*MiB + 128*MiB) // pool, log, key, Aria
	r := Plan(jointHost(srv))
	w := r.WorstCases[1]
	if w.SharedName != "in huge pages" || w.SharedBytes != buffers || w.PrivateBytes != wcm.PrivateBytes-buffers ||
		w.PageTablesBytes != buffers/(2*MiB)*8 || w.Now != nil {
		t.Errorf("planned worst case %+v", w)
	}
	in := jointHost(srv)
	in.Options.NoHugePages = true
	w = Plan(in).WorstCases[1]
	if w.SharedBytes != 0 || w.PrivateBytes != wcm.PrivateBytes || w.PageTablesBytes != buffers/(4*KiB)*8 {
		t.Errorf("worst case without huge pages %+v", w)
	}
}

// TestPlanWorstCaseNow: a running PostgreSQL instance in 4 KiB pages shows
// its current worst case (what dbmem check says) beside the planned one;
// one already in the planned page size does not.
func TestPlanWorstCaseNow(t *testing.T) {
	in := seed001()
	cur := in.Instances[0].Work
	cur.SharedPageBytes = 4 * KiB
	in.Instances[0].CurrentWork = &cur
	w := Plan(in).WorstCases[0]
	if w.Now == nil || w.Now.PageTablesBytes != cur.WorstCase().PageTablesBytes || w.Now.PageTablesBytes < 500*w.PageTablesBytes ||
		!strings.Contains(w.NowBasis, "4 KiB pages") {
		t.Fatalf("planned %+v, now %+v (%s)", w.WorstCase, w.Now, w.NowBasis)
	}
	if w := Plan(in).WorstCases[0]; !strings.Contains(w.NowBasis, "current settings") {
		t.Errorf("planned with changes, the basis does not say so: %s", w.NowBasis)
	}
	cur.SharedPageBytes, in.Instances[0].Changes = 2*MiB, nil
	if w := Plan(in).WorstCases[0]; w.Now != nil {
		t.Errorf("already in 2 MiB pages: now %+v", w.Now)
	}
}

// TestPlanMySQLSysVWithoutUnit: a SysV server no unit runs gets no
// LimitMEMLOCK drop-in (it would be for a unit that does not start it),
// but a note with the limit to set where it is started, and why.
func TestPlanMySQLSysVWithoutUnit(t *testing.T) {
	srv := mariadb("OFF")
	srv.Flavor, srv.Major, srv.Minor = mysql.MySQL, 5, 7
	srv.Settings = mysql.Defaults(mysql.MySQL)
	srv.Settings["innodb_buffer_pool_size"] = mysql.Setting{Value: "1073741824", Source: mysql.FromServer}
	srv.Unit, srv.NoUnit = "", "its cgroup is /: no service unit runs it"
	in := jointHost(srv)
	in.Host.Now = &HostNow{Sysctls: linux.Sysctls{"kernel.shmmax": "33554432", "kernel.shmall": "18446744073692774399", "vm.hugetlb_shm_group": "0"}}
	r := Plan(in)
	if s, ok := setting(r, finding.TargetSystemd, "LimitMEMLOCK"); ok {
		t.Errorf("LimitMEMLOCK planned for a server no unit runs: %+v", s)
	}
	want := "its cgroup is /: no service unit runs it, so no drop-in sets its memlock limit"
	if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, want) }) {
		t.Errorf("no note says %q:\n%s", want, strings.Join(r.Notes, "\n"))
	}
}
