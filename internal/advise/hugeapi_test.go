package advise

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
)

func TestEngineHugePageAPI(t *testing.T) {
	for _, c := range []struct {
		e    Engine
		want HugePageAPI
	}{
		{Engine{Name: finding.EnginePostgres, Major: 15}, HugeMmap},
		{Engine{Name: finding.EngineOracle, Major: 19}, HugeSysV},
		{Engine{Name: finding.EngineMySQL, Major: 5, Minor: 6}, HugeSysV},
		{Engine{Name: finding.EngineMySQL, Major: 5, Minor: 7}, HugeSysV},
		{Engine{Name: finding.EngineMySQL, Major: 8, Minor: 0}, HugeMmap},
		{Engine{Name: finding.EngineMySQL, Major: 8, Minor: 4}, HugeMmap},
		{Engine{Name: finding.EngineMySQL, Major: 9, Minor: 1}, HugeMmap},
		{Engine{Name: finding.EngineMariaDB, Major: 5, Minor: 5}, HugeSysV},
		{Engine{Name: finding.EngineMariaDB, Major: 10, Minor: 4}, HugeSysV},
		{Engine{Name: finding.EngineMariaDB, Major: 10, Minor: 5}, HugeMmap},
		{Engine{Name: finding.EngineMariaDB, Major: 10, Minor: 11}, HugeMmap},
		{Engine{Name: finding.EngineMariaDB, Major: 11, Minor: 4}, HugeMmap},
		// Unknown version: assumed current, as mysql.APIOf does.
		{Engine{Name: finding.EngineMySQL}, HugeMmap},
		{Engine{Name: finding.EngineMariaDB}, HugeMmap},
	} {
		if got := c.e.HugePageAPI(); got != c.want {
			t.Errorf("%s: %s, want %s", c.e, got, c.want)
		}
	}
}

// sysvCandidate is a server with large_pages=ON, no huge mapping yet,
// outside vm.hugetlb_shm_group, without CAP_IPC_LOCK and with a 64 KiB
// memlock limit: what it needs depends only on how it allocates.
func sysvCandidate(f mysql.Flavor, version string, major, minor int) *mysql.Instance {
	in := mariadb("ON")
	in.Flavor, in.Version, in.Major, in.Minor = f, version, major, minor
	in.Memory.HugeMappings = nil
	in.Memlock = &linux.Limit{Name: linux.LimitMemlock, Soft: 64 * KiB, Hard: 64 * KiB}
	return in
}

// TestMySQLFindingsFollowAPI: the memlock and vm.hugetlb_shm_group advice
// appears for servers that use shmget(SHM_HUGETLB) and never for those
// that use mmap(MAP_HUGETLB); a measured SysV mapping outranks the version.
func TestMySQLFindingsFollowAPI(t *testing.T) {
	sysvMapping := []mysql.MappingInfo{{Start: 0x7f0000000000, SizeBytes: 130 * MiB, Path: "/SYSV00000000 (deleted)", PageSizeBytes: 2 * MiB, Hugetlb: true}}
	for _, c := range []struct {
		name     string
		flavor   mysql.Flavor
		version  string
		major    int
		minor    int
		measured []mysql.MappingInfo
		sysv     bool
	}{
		{"MySQL 5.7", mysql.MySQL, "5.7.44", 5, 7, nil, true},
		{"MariaDB 10.4", mysql.MariaDB, "10.4.32-MariaDB", 10, 4, nil, true},
		{"MySQL 8.0", mysql.MySQL, "8.0.36", 8, 0, nil, false},
		{"MySQL 8.4", mysql.MySQL, "8.4.3", 8, 4, nil, false},
		{"MariaDB 10.11", mysql.MariaDB, "10.11.19-MariaDB", 10, 11, nil, false},
		{"MySQL 8.0 measured on SysV segments", mysql.MySQL, "8.0.36", 8, 0, sysvMapping, true},
	} {
		s := hostSnap(24 * GiB)
		s.Host.Sysctls["vm.hugetlb_shm_group"] = "0"
		in := sysvCandidate(c.flavor, c.version, c.major, c.minor)
		in.Memory.HugeMappings = c.measured
		s.MySQL = []*mysql.Instance{in}
		fs := Check(s, Options{})
		_, rights := find(fs, "mysql.sysv_rights")
		if rights != c.sysv {
			t.Errorf("%s: mysql.sysv_rights %v, want %v (%v)", c.name, rights, c.sysv, ids(fs))
		}
		f := mustFind(t, fs, "mysql.large_pages_not_used")
		var limits []string
		for _, st := range f.Settings {
			if st.Name == "LimitMEMLOCK" || st.Name == "vm.hugetlb_shm_group" {
				limits = append(limits, st.Name)
			}
		}
		if (len(limits) == 2) != c.sysv || (len(limits) == 0) == c.sysv {
			t.Errorf("%s: large-page settings %v, want LimitMEMLOCK and vm.hugetlb_shm_group: %v", c.name, limits, c.sysv)
		}
		api := "mmap MAP_HUGETLB"
		if c.sysv {
			api = "shmget SHM_HUGETLB"
		}
		if !evidenceHas(f, "pages needed", "via "+api) {
			t.Errorf("%s: pages needed does not name %s: %+v", c.name, api, f.Evidence)
		}
	}
}

func evidenceHas(f finding.Finding, name, sub string) bool {
	for _, e := range f.Evidence {
		if e.Name == name && strings.Contains(e.Value, sub) {
			return true
		}
	}
	return false
}

// mariadbProcess is the server process: one process, the buffer pool in
// its anonymous memory.
func mariadbProcess(in *mysql.Instance, rss uint64) {
	in.Process = linux.Process{PID: in.PID, Comm: "mariadbd",
		OOMScoreAdj: new(0), Status: status(rss, 0, 2*MiB)}
}

// TestOOMRankingIncludesMySQL: mysqld/mariadbd is ranked with the
// PostgreSQL processes, labelled as a database, both when only the
// databases were read and when every host process was.
func TestOOMRankingIncludesMySQL(t *testing.T) {
	s := hostSnap(24 * GiB)
	s.Postgres = append(s.Postgres, pgInstance(GiB, basePage, nil))
	in := mariadb("OFF")
	mariadbProcess(in, 3*GiB)
	s.MySQL = []*mysql.Instance{in}
	java := other(7, "java", GiB, 0)
	for _, procs := range [][]linux.Process{nil, {java, in.Process, s.Postgres[0].Processes[0].Process}} {
		f := mustFind(t, Check(s, Options{Processes: procs}), "oom.ranking")
		if !strings.Contains(f.Title, "pid 4242 mariadbd (mariadb 10.11 :3306)") {
			t.Errorf("with %d host processes: the 3 GiB MariaDB is not the first victim: %q", len(procs), f.Title)
		}
		if len(f.Evidence) == 0 || !strings.HasPrefix(f.Evidence[0].Name, "#1 pid 4242 mariadbd") {
			t.Errorf("ranking %+v", f.Evidence)
		}
		if !strings.Contains(f.Fix, "large_pages") || strings.Contains(f.Fix, "PG_OOM_ADJUST_VALUE") {
			t.Errorf("fix for a MariaDB victim: %q", f.Fix)
		}
	}
}
