package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/mysql/mysqltest"
)

// squeeze joins a table's columns with two spaces, whatever their width.
func squeeze(s string) string { return strings.Join(strings.Fields(s), "  ") }

// TestPlanMySQLServer plans a throwaway MariaDB 10.11 (256 MiB buffer
// pool, large_pages=OFF): its large-page buffers go into vm.nr_hugepages
// with their own margin, large_pages=ON goes to the [mysqld] section, and
// as MariaDB 10.5+ maps huge pages with mmap, no SysV setting appears.
// PGHOST names an empty directory, so no PostgreSQL server of the host is
// connected to; --mysql-port keeps the test's server only.
func TestPlanMySQLServer(t *testing.T) {
	s := mysqltest.Start(t, map[string]string{"innodb_buffer_pool_size": "256M"})
	t.Setenv("PGHOST", t.TempDir())
	t.Setenv("PGPORT", "")
	port := fmt.Sprint(s.Port)
	code, out, stderr := run(t, "--mysql-port", port, "plan")
	if code != ExitOK {
		t.Fatalf("plan: exit %d: %s\n%s", code, stderr, out)
	}
	subject := fmt.Sprintf("mariadb 10.11 :%d", s.Port)
	// The buffer pool counts as its measured mapping: 256 MiB and InnoDB's
	// control blocks (128 to 144 pages seen).
	need := regexp.MustCompile(regexp.QuoteMeta(subject) + ` \([^)]*\): buffer pool (\d+) \+ log buffer 8 \+ key buffer 64 \+ Aria page cache 64 \+ own margin \d+`)
	m := need.FindStringSubmatch(out)
	if pool, _ := strconv.Atoi(append(m, "", "")[1]); pool < 128 || pool > 160 {
		t.Errorf("the pool does not count the server's large-page buffers:\n%s", out)
	}
	flat := squeeze(out)
	for _, want := range []string{"mysql  large_pages  ON  OFF", "MAP_HUGETLB needs only free pages",
		"WORST CASE (with the planned huge pages of 2 MiB)", subject, "in huge pages", "PostgreSQL instances not planned: --mysql-port " + port} {
		if !strings.Contains(flat, squeeze(want)) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	for _, banned := range []string{"sysctl  vm.hugetlb_shm_group", "systemd  mariadb.service", "OOMPolicy", "sysctl  kernel.shmmax", "huge_pages  on"} {
		if strings.Contains(flat, squeeze(banned)) {
			t.Errorf("plan for a MariaDB 10.11 alone has %q:\n%s", banned, out)
		}
	}

	code, out, stderr = run(t, "--mysql-port", port, "--json", "plan")
	var doc struct {
		HugePages struct {
			NeedPages   uint64 `json:"need_pages"`
			MarginPages uint64 `json:"margin_pages"`
			OtherPages  uint64 `json:"other_pages"`
			PoolPages   uint64 `json:"pool_pages"`
		} `json:"huge_pages"`
		WorstCases []struct {
			Subject    string `json:"subject"`
			SharedName string `json:"shared_name"`
		} `json:"worst_cases"`
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("--json plan: exit %d: %s\n%s", code, stderr, out)
	}
	hp := doc.HugePages
	if hp.NeedPages < 128+8+64+64 || hp.MarginPages != 0 || hp.PoolPages != hp.NeedPages+hp.OtherPages || len(doc.WorstCases) != 1 ||
		doc.WorstCases[0].SharedName != "in huge pages" {
		t.Errorf("pool %+v (the server's need carries its own margin), worst cases %+v", hp, doc.WorstCases)
	}

	code, out, stderr = run(t, "--mysql-port", port, "plan", "--format", "mysql")
	if code != ExitOK || !strings.Contains(out, "[mysqld]") || !strings.Contains(out, "\nlarge_pages = ON\n") {
		t.Errorf("--format mysql: exit %d %s\n%s", code, stderr, out)
	}
	// A port this test listens on: no MySQL/MariaDB server can be there
	// (the port next to the server's may be another test's server).
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	code, _, stderr = run(t, "--mysql-port", fmt.Sprint(l.Addr().(*net.TCPAddr).Port), "plan")
	if code != ExitUsage || !strings.Contains(stderr, "no running MySQL/MariaDB server on port") {
		t.Errorf("--mysql-port of no server: exit %d %s", code, stderr)
	}
}

// TestPlanMySQLWhatIf: a 32 GiB host with an 8 GiB buffer pool. MariaDB
// 10.11 maps huge pages with mmap: the pool and large_pages only. MySQL
// 5.7 uses SysV segments: LimitMEMLOCK for mysql.service, and notes for
// what a what-if host cannot tell (the gid, the kernel's shm limits).
func TestPlanMySQLWhatIf(t *testing.T) {
	base := []string{"plan", "--ram", "32GiB", "--innodb-buffer-pool-size", "8GiB"}
	code, out, stderr := run(t, append(base, "--mysql-version", "10.11")...)
	// 4096 pool + 8 log + 64 key + 64 Aria = 4232, margin 423 (10%).
	flat := squeeze(out)
	for _, want := range []string{"vm.nr_hugepages  4655", "mariadb.service:  large_pages  ON", "mariadb.service:  innodb_buffer_pool_size  8589934592",
		"mariadb 10.11 (what-if): buffer pool 4096 + log buffer 8 + key buffer 64 + Aria page cache 64 + own margin 423", "margin 0 (every need carries its own)"} {
		if code != ExitOK || !strings.Contains(flat, squeeze(want)) {
			t.Errorf("10.11 what-if lacks %q: exit %d %s\n%s", want, code, stderr, out)
		}
	}
	if strings.Contains(flat, "systemd") || strings.Contains(flat, "postgresql") || strings.Contains(flat, "sysctl  vm.hugetlb_shm_group") {
		t.Errorf("10.11 what-if plans SysV or PostgreSQL settings:\n%s", out)
	}
	code, out, stderr = run(t, append(base, "--mysql-version", "5.7")...)
	// 4096 pool + 8 log + 4 key (MySQL's 8 MiB) = 4108, margin 410.
	flat = squeeze(out)
	for _, want := range []string{"vm.nr_hugepages  4518", "mysql.service:  LimitMEMLOCK  infinity", "set vm.hugetlb_shm_group to the gid",
		"kernel.shmmax must be at least 8589934592", "SHM_HUGETLB also needs"} {
		if code != ExitOK || !strings.Contains(flat, squeeze(want)) {
			t.Errorf("5.7 what-if lacks %q: exit %d %s\n%s", want, code, stderr, out)
		}
	}
	code, out, stderr = run(t, append(base, "--mysql-version", "5.7", "--format", "systemd", "--target", "mysql.service")...)
	if code != ExitOK || !strings.Contains(out, "mysql.service.d/60-dbmem.conf") || !strings.Contains(out, "\nLimitMEMLOCK=infinity\n") {
		t.Errorf("--format systemd: exit %d %s\n%s", code, stderr, out)
	}
	for _, args := range [][]string{
		{"plan", "--mysql-version", "10.11"},
		{"plan", "--ram", "32GiB", "--innodb-buffer-pool-size", "8GiB"},
		{"plan", "--ram", "32GiB", "--mysql-version", "banana"},
		{"plan", "--ram", "32GiB", "--mysql-version", "10.11", "--mysql-set", "noequals"},
	} {
		if code, _, stderr := run(t, args...); code != ExitUsage {
			t.Errorf("dbmem %v: exit %d, want %d (%s)", args, code, ExitUsage, stderr)
		}
	}
}

// TestPlanPGPORT: PGPORT chooses the instance as --pg-port does.
func TestPlanPGPORT(t *testing.T) {
	fx := fixtureArgs("pg15-hugepages-off")
	t.Setenv("PGPORT", "1")
	if code, _, stderr := run(t, append(fx, "plan")...); code != ExitUsage || !strings.Contains(stderr, "no running PostgreSQL instance on port 1") {
		t.Errorf("PGPORT=1: exit %d %s", code, stderr)
	}
	t.Setenv("PGPORT", "none")
	if code, _, stderr := run(t, append(fx, "plan")...); code != ExitUsage || !strings.Contains(stderr, "PGPORT") {
		t.Errorf("PGPORT=none: exit %d %s", code, stderr)
	}
	t.Setenv("PGPORT", "")
	if code, out, stderr := run(t, append(fx, "plan")...); code != ExitOK || !strings.Contains(out, "huge_pages") {
		t.Errorf("no PGPORT: exit %d %s", code, stderr)
	}
}
