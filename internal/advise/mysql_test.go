package advise

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/sysv"
)

// mariadb is the measured case: large_pages=ON, the 1 GiB pool in 4 KiB
// pages, 124 MiB and 106 MiB in huge pages (MariaDB 10.11.19 on this VM).
func mariadb(largePages string) *mysql.Instance {
	s := mysql.Defaults(mysql.MariaDB)
	s["innodb_buffer_pool_size"] = mysql.Setting{Value: "1073741824", Source: mysql.FromServer}
	s["large_pages"] = mysql.Setting{Value: largePages, Source: mysql.FromServer}
	in := &mysql.Instance{PID: 4242, Flavor: mysql.MariaDB, Version: "10.11.19-MariaDB", Major: 10, Minor: 11, Patch: 19,
		Port: 3306, DataDir: "/var/lib/mysql", Settings: s, Creds: &linux.Creds{GID: 110, FSGID: 110},
		Cgroup: &linux.CgroupInfo{PID: 4242, Unit: "mariadb.service"}, Unit: "mariadb.service"}
	pool := mysql.MappingInfo{Start: 0x7f8e3c000000, SizeBytes: GiB, PageSizeBytes: 4096, ResidentBytes: 15 * MiB, DontDump: true}
	in.Memory.BufferPool = &mysql.BufferPool{Mappings: []mysql.MappingInfo{pool}, SizeBytes: GiB, PageSizeBytes: 4096}
	if largePages == "ON" {
		in.Memory.HugeMappings = []mysql.MappingInfo{
			{Start: 0x7f8e80400000, SizeBytes: 124 * MiB, Path: "/anon_hugepage (deleted)", PageSizeBytes: 2 * MiB, Hugetlb: true},
			{Start: 0x7f8e8fa00000, SizeBytes: 106 * MiB, Path: "/anon_hugepage (deleted)", PageSizeBytes: 2 * MiB, Hugetlb: true}}
	}
	return in
}

func TestMySQLLargePagesNotUsed(t *testing.T) {
	s := hostSnap(24 * GiB)
	s.Host.HugePools[0].Total, s.Host.HugePools[0].Free, s.Host.HugePools[0].Reserved = 600, 599, new(uint64(114))
	s.MySQL = []*mysql.Instance{mariadb("ON")}
	f := mustFind(t, Check(s, Options{}), "mysql.large_pages_not_used")
	if f.Severity != finding.Warning || !strings.Contains(f.Title, "1 GiB buffer pool is in 4 KiB pages") {
		t.Errorf("finding = %+v", f)
	}
	// 512 + 62 + 53 = 627 pages, 10% margin 62: 689; nothing else holds pages.
	if len(f.Settings) != 1 || f.Settings[0].Name != "vm.nr_hugepages" || f.Settings[0].Value != "689" || f.Settings[0].Current != "600" {
		t.Errorf("settings = %+v", f.Settings)
	}
}

func TestMySQLLargePagesOff(t *testing.T) {
	s := hostSnap(24 * GiB)
	s.MySQL = []*mysql.Instance{mariadb("OFF")}
	f := mustFind(t, Check(s, Options{}), "mysql.large_pages_off")
	// 512 pool + 8 log buffer + 64 key buffer + 64 Aria page cache = 648,
	// margin 64: 712, above the 627-643 MariaDB 10.11.19 took (measured).
	if f.Severity != finding.Notice || len(f.Settings) != 2 || f.Settings[0].Value != "712" || f.Settings[1].Name != "large_pages" {
		t.Errorf("finding = %+v", f)
	}
}

// MySQL 5.7 maps large pages with shmget: without the group or
// CAP_IPC_LOCK its next start cannot create the segments.
func TestMySQLSysVRights(t *testing.T) {
	s := hostSnap(24 * GiB)
	s.Host.Sysctls["vm.hugetlb_shm_group"] = "0"
	s.Host.Sysctls["kernel.shmmax"] = "68719476736"
	s.Host.Sysctls["kernel.shmall"] = "4294967296"
	in := mariadb("ON")
	in.Flavor, in.Version, in.Major, in.Minor, in.Patch = mysql.MySQL, "5.7.44", 5, 7, 44
	in.Memory.HugeMappings = nil
	in.Memlock = &linux.Limit{Name: linux.LimitMemlock, Soft: 64 * KiB, Hard: 64 * KiB}
	s.MySQL = []*mysql.Instance{in}
	f := mustFind(t, Check(s, Options{}), "mysql.sysv_rights")
	names := map[string]string{}
	for _, st := range f.Settings {
		names[st.Name] = st.Value + "@" + st.Unit
	}
	if f.Severity != finding.Warning || names["vm.hugetlb_shm_group"] != "110@" || !strings.HasSuffix(names["LimitMEMLOCK"], "@mariadb.service") {
		t.Errorf("finding = %+v (settings %v)", f, names)
	}
}

func TestMySQLWorstCase(t *testing.T) {
	s := hostSnap(8 * GiB)
	in := mariadb("OFF")
	in.Settings["max_connections"] = mysql.Setting{Value: "1000", Source: mysql.FromServer}
	s.MySQL = []*mysql.Instance{in}
	if f := mustFind(t, Check(s, Options{}), "mysql.worst_case"); f.Severity != finding.Warning {
		t.Errorf("1000 connections x 19 MiB on 8 GiB: %+v", f)
	}
}

// A MariaDB in a pod with a hugetlb fault limit and no reservation limit,
// and a memory limit below its worst case.
func TestContainerFindings(t *testing.T) {
	s := hostSnap(64 * GiB)
	in := mariadb("ON")
	lim, mem := uint64(512*MiB), uint64(2*GiB)
	c, _ := linux.ParseContainer("/kubepods/burstable/pod1234abcd/" + strings.Repeat("ab", 32))
	in.Cgroup.Container = &c
	in.Cgroup.Hugetlb = []linux.CgroupHugetlb{{Version: 2, Path: "/kubepods/x", PageSizeBytes: 2 * MiB, LimitBytes: &lim, LimitPath: "/kubepods/x", RsvdAccounting: true}}
	in.Cgroup.Memory = &linux.CgroupMemory{Version: 2, Path: "/kubepods/x", LimitBytes: &mem, LimitPath: "/kubepods/x"}
	s.MySQL = []*mysql.Instance{in}
	got := ids(Check(s, Options{}))
	if got["container.hugetlb_sigbus"] != finding.Warning || got["container.worst_case_over_limit"] != finding.Warning {
		t.Errorf("findings %v", got)
	}
	rsvd := lim
	in.Cgroup.Hugetlb[0].RsvdLimitBytes = &rsvd
	if _, ok := ids(Check(s, Options{}))["container.hugetlb_sigbus"]; ok {
		t.Error("with a reservation limit there is no SIGBUS risk")
	}
}

func TestSysVFindings(t *testing.T) {
	held := uint64(16 * MiB)
	orphan := sysv.SegmentInfo{Segment: sysv.Segment{ID: 7, SizeBytes: 16 * MiB, RSSBytes: &held, SwapBytes: new(uint64)}, Huge: sysv.HugeUnknown}
	sga := sysv.SegmentInfo{Segment: sysv.Segment{ID: 8, UID: 54321, SizeBytes: 2 * GiB, Attached: 3, CreatorPID: 10},
		Attachments: []sysv.Attachment{{PID: 10}, {PID: 11}, {PID: 12}}, Huge: sysv.HugeNo, PageSizeBytes: 4096}
	s := hostSnap(24 * GiB)
	s.SysV = &sysv.Snapshot{Kernel: sysv.Kernel{ShmMaxBytes: GiB, ShmAllPages: 1 << 40, ShmMni: 4096, PageSizeBytes: 4096, HugePageSizeBytes: new(2 * MiB)},
		Segments: []sysv.SegmentInfo{orphan, sga}}
	got := ids(Check(s, Options{}))
	if got["sysv.orphan"] != finding.Info || got["sysv.4k_segment"] != finding.Notice || got["sysv.over_shmmax"] != finding.Warning {
		t.Errorf("findings %v", got)
	}
}

func mustFind(t *testing.T, fs []finding.Finding, id string) finding.Finding {
	t.Helper()
	f, ok := find(fs, id)
	if !ok {
		t.Fatalf("no %s finding in %v", id, ids(fs))
	}
	return f
}
