package postmortem

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/treetest"
)

// The hugetlb limits of a process's cgroup, v1 and v2, for every page
// size of the host, and what they say about a bus error.
func TestReadHugetlb(t *testing.T) {
	root := t.TempDir()
	treetest.Write(t, root, map[string]string{
		"proc/42/cgroup": "12:hugetlb:/kubepods/pod1/ctr\n11:memory:/kubepods/pod1/ctr\n",
		"sys/fs/cgroup/hugetlb/kubepods/pod1/ctr/hugetlb.2MB.limit_in_bytes":  "0\n",
		"sys/fs/cgroup/hugetlb/kubepods/pod1/ctr/hugetlb.1GB.limit_in_bytes":  "9223372036854771712\n",
		"sys/fs/cgroup/hugetlb/kubepods/pod1/ctr/hugetlb.64KB.limit_in_bytes": "0\n",
		"proc/43/cgroup":                                               "0::/system.slice/pg.scope\n",
		"sys/fs/cgroup/cgroup.controllers":                             "cpu memory hugetlb\n",
		"sys/fs/cgroup/system.slice/pg.scope/hugetlb.2MB.max":          "0\n",
		"sys/fs/cgroup/system.slice/pg.scope/hugetlb.2MB.current":      "0\n",
		"sys/fs/cgroup/system.slice/pg.scope/hugetlb.2MB.rsvd.max":     "0\n",
		"sys/fs/cgroup/system.slice/pg.scope/hugetlb.2MB.rsvd.current": "0\n",
		"proc/45/cgroup": "0::/user.slice\n", // v2 without the hugetlb controller
	})
	sizes := []uint64{2 << 20, 1 << 30}
	fs := linux.FS{Proc: filepath.Join(root, "proc"), Sys: filepath.Join(root, "sys"), Root: root}
	v1 := ReadHugetlb(fs, 42, "pg v1", sizes)
	if len(v1) != 2 || vu(v1[0].LimitBytes) != 0 || v1[0].RsvdLimitBytes != nil || !v1[1].Unlimited {
		t.Fatalf("v1 = %+v", v1)
	}
	if n := hugetlbNotes(v1, "pg v1"); len(n) != 2 || !strings.Contains(n[0], "no reservation limit") || !strings.Contains(n[0], "confirmed") {
		t.Errorf("v1 notes = %q", n)
	}
	v2 := ReadHugetlb(fs, 43, "pg v2", sizes)
	if len(v2) != 1 || vu(v2[0].RsvdLimitBytes) != 0 || v2[0].Cgroup != "/system.slice/pg.scope" {
		t.Fatalf("v2 = %+v", v2)
	}
	if n := hugetlbNotes(v2, "pg v2"); len(n) != 1 || strings.Contains(n[0], "confirmed") {
		t.Errorf("v2 notes = %q", n)
	}
	if none := ReadHugetlb(fs, 44, "gone", sizes); len(none) != 1 || none[0].Why == "" {
		t.Errorf("missing process = %+v", none)
	}
	if none := ReadHugetlb(fs, 45, "no controller", sizes); len(none) != 1 || !strings.Contains(none[0].Why, "no hugetlb") {
		t.Errorf("no controller = %+v", none)
	}
	// 64 KiB pages (arm64): a size the host has is read, whatever it is.
	if arm := ReadHugetlb(fs, 42, "pg arm64", []uint64{64 << 10}); len(arm) != 1 || arm[0].Size != "64KB" || vu(arm[0].LimitBytes) != 0 {
		t.Errorf("64KB = %+v", arm)
	}
}

// A bus error in this host's own log is checked against its instance's
// hugetlb limits; in a given log it is not.
func TestBusErrorConfirmedOnThisHost(t *testing.T) {
	l := corpusLog(t, "testdata/corpus/d02-docker-postgres-946-pg14-k8s-bus-error.truth.json", "postgresql")
	limits := []HugetlbLimits{{Instance: "postgresql 14 :5432 (/data)", Cgroup: "/kubepods/pod1/ctr", Size: "2MB", LimitBytes: new(uint64)}}
	r := Analyze(Input{Logs: []Log{l}, Hugetlb: limits})
	if r.ThisHost != nil || !hasAdvice(r, "postmortem.bus_error") {
		t.Errorf("given log: this host %+v advice %+v", r.ThisHost, r.Advice)
	}
	l.Given, l.Instance = false, "postgresql 14 :5432 (/data)"
	r = Analyze(Input{Logs: []Log{l}, Hugetlb: limits})
	if r.ThisHost == nil || !strings.Contains(strings.Join(r.ThisHost.Notes, " "), "confirmed") {
		t.Errorf("this host's log: %+v", r.ThisHost)
	}
}
