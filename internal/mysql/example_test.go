package mysql

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/kerneltest"
	"github.com/dbmem/dbmem/internal/mysql/mysqltest"
)

var example = flag.String("mysql.example", "", "write `dbmem report` of the measured case to this file (docs)")

// TestExampleReport produces the example of docs/mysql-sysv-containers.md:
// the measured case (a pool sized for the buffer pool alone) in a cgroup v2
// "docker-<id>.scope" whose hugetlb limit has no reservation limit, then
// runs the real `dbmem report` and `dbmem check`.
func TestExampleReport(t *testing.T) {
	if *example == "" {
		t.Skip("-mysql.example FILE not given")
	}
	kerneltest.AddHugePages(t, 600)
	s := mysqltest.Start(t, map[string]string{"innodb_buffer_pool_size": "1G", "large_pages": "ON"})
	root := "/sys/fs/cgroup/unified"
	name := "docker-" + strings.Repeat("5eed", 16) + ".scope"
	dir := filepath.Join(root, name)
	sub := filepath.Join(root, "cgroup.subtree_control")
	if err := os.WriteFile(sub, []byte("+hugetlb"), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.WriteFile(sub, []byte("-hugetlb"), 0) })
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(root, "cgroup.procs"), []byte(strconv.Itoa(s.PID)), 0)
		os.Remove(dir)
	})
	os.WriteFile(filepath.Join(dir, "hugetlb.2MB.max"), []byte(strconv.Itoa(512<<20)), 0)
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(s.PID)), 0); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "dbmem")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/dbmem").CombinedOutput(); err != nil {
		t.Fatalf("build dbmem: %v\n%s", err, out)
	}
	var doc strings.Builder
	for _, args := range [][]string{{"report"}, {"check"}} {
		out, _ := exec.Command(bin, args...).CombinedOutput()
		doc.WriteString("$ dbmem " + strings.Join(args, " ") + "\n" + string(out) + "\n")
	}
	doc.WriteString("test server: pid " + strconv.Itoa(s.PID) + ", port " + strconv.Itoa(s.Port) + "\n")
	if err := os.WriteFile(*example, []byte(doc.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
