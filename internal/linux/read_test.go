package linux

import (
	"github.com/dbmem/dbmem/internal/measure"
	"os"
	"path/filepath"
	"testing"

	"github.com/dbmem/dbmem/internal/treetest"
)

var fixture = filepath.Join("..", "..", "testdata", "fixtures", "pg15-hugepages-on")

func fixtureFS() FS {
	return FS{Proc: filepath.Join(fixture, "proc"), Sys: filepath.Join(fixture, "sys"), Root: filepath.Join(fixture, "root")}
}

func TestReadHostFixture(t *testing.T) {
	h, gaps, err := ReadHost(fixtureFS())
	if err != nil {
		t.Fatal(err)
	}
	if len(gaps) != 0 {
		t.Errorf("gaps reading a complete fixture: %v", gaps)
	}
	p, ok := h.DefaultPool()
	if !ok || p.Total != 666 || p.PageSizeBytes != 2<<20 || !is(h.Meminfo.HugePagesTotal, 666) || p.Source != PoolFromSysfs {
		t.Errorf("default pool %+v (meminfo %v)", p, h.Meminfo.HugePagesTotal)
	}
	if h.NUMANodes != 1 || h.THP.Enabled != "madvise" || h.Sysctls["vm.nr_hugepages"] != "666" || h.KernelRelease == "" {
		t.Errorf("host %+v", h)
	}
	if v, ok := h.Sysctls.Uint("kernel.shmmax"); !ok || v < 1<<62 {
		t.Errorf("shmmax %d %v", v, ok)
	}
}

func TestReadHostLive(t *testing.T) {
	h, _, err := ReadHost(DefaultFS())
	if err != nil {
		t.Fatal(err)
	}
	m := h.Meminfo
	if miss := m.Missing(); len(miss) > 0 {
		t.Errorf("this kernel (6.x) has every line dbmem reads; missing %q", miss)
	}
	if m.MemTotalBytes == nil || *m.MemTotalBytes < 1<<30 || *m.MemAvailableBytes > *m.MemTotalBytes || *m.PageTablesBytes == 0 {
		t.Errorf("implausible live meminfo: %+v", m)
	}
	if _, ok := h.Sysctls.Int("vm.overcommit_memory"); !ok {
		t.Errorf("vm.overcommit_memory unreadable: %v", h.Sysctls)
	}
}

func TestReadProcessSelf(t *testing.T) {
	p, gaps, err := ReadProcess(DefaultFS(), os.Getpid(), measure.Smaps)
	if err != nil {
		t.Fatal(err)
	}
	if p.PID != os.Getpid() || p.Status.VmRSSBytes == nil || *p.Status.VmRSSBytes == 0 || p.Rollup == nil || p.Rollup.PssAnonBytes == nil {
		t.Errorf("self: %+v gaps %v", p, gaps)
	}
	if p.OOMScore == nil || p.OOMScoreAdj == nil || len(p.Status.Missing()) > 0 {
		t.Errorf("self: oom %v/%v, status lines missing %q", p.OOMScore, p.OOMScoreAdj, p.Status.Missing())
	}
	cost, exact, ok := p.PrivateCost()
	if !exact || !ok || cost < *p.Rollup.PssAnonBytes {
		t.Errorf("private cost %d exact=%v", cost, exact)
	}
}

func TestReadProcessGone(t *testing.T) {
	_, _, err := ReadProcess(DefaultFS(), 1<<30, measure.Status)
	if !IsGone(err) {
		t.Errorf("a PID that does not exist gave %v, want a 'gone' error", err)
	}
}

func TestReadProcessDegrades(t *testing.T) {
	// A capture without smaps_rollup and oom_score: the process still reads,
	// and the missing files are gaps.
	dir := t.TempDir()
	pdir := filepath.Join(dir, "proc", "7")
	os.MkdirAll(pdir, 0o755)
	os.WriteFile(filepath.Join(pdir, "stat"), []byte("7 (postgres) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n"), 0o644)
	os.WriteFile(filepath.Join(pdir, "status"), []byte(statusBackend), 0o644)
	os.WriteFile(filepath.Join(pdir, "smaps_rollup"), nil, 0o000)
	fs := FS{Proc: filepath.Join(dir, "proc")}
	p, gaps, err := ReadProcess(fs, 7, measure.Smaps)
	if err != nil {
		t.Fatal(err)
	}
	if p.Rollup != nil || !is(p.Status.VmPTEBytes, 2600<<10) || p.OOMScore != nil || p.OOMScoreAdj != nil {
		t.Errorf("process %+v", p)
	}
	if _, exact, ok := p.PrivateCost(); exact || !ok {
		t.Error("private cost claims to be exact without Pss_Anon, or is unknown with RssAnon")
	}
	if len(gaps) == 0 {
		t.Error("no gap for the unreadable smaps_rollup")
	}
}

func TestCgroupV2WithLimitOnParent(t *testing.T) {
	dir := t.TempDir()
	treetest.Write(t, dir, map[string]string{
		"proc/9/cgroup":                                  "0::/kubepods/pod1/ctr\n",
		"sys/fs/cgroup/cgroup.controllers":               "cpuset cpu io memory hugetlb pids\n",
		"sys/fs/cgroup/kubepods/pod1/memory.max":         "1073741824\n",
		"sys/fs/cgroup/kubepods/pod1/ctr/memory.max":     "max\n",
		"sys/fs/cgroup/kubepods/pod1/ctr/memory.current": "536870912\n",
		"sys/fs/cgroup/kubepods/pod1/ctr/memory.stat":    "anon 100\nfile 200\nshmem 300\n",
		"sys/fs/cgroup/kubepods/pod1/ctr/memory.events":  "low 0\nhigh 0\nmax 4\noom 2\noom_kill 1\n",
	})
	cg, ok, err := ReadCgroupMemory(FS{Proc: filepath.Join(dir, "proc"), Sys: filepath.Join(dir, "sys")}, 9)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if cg.Version != 2 || cg.LimitBytes == nil || *cg.LimitBytes != 1<<30 || cg.LimitPath != "/kubepods/pod1" ||
		!is(cg.UsageBytes, 1<<29) || !is(cg.ShmemBytes, 300) || cg.OOMKills == nil || *cg.OOMKills != 1 {
		t.Errorf("cgroup %+v", cg)
	}
}

func TestCgroupLiveSelf(t *testing.T) {
	cg, ok, err := ReadCgroupMemory(DefaultFS(), os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if ok && (cg.Version < 1 || cg.UsageBytes == nil || *cg.UsageBytes == 0) {
		t.Errorf("live cgroup %+v", cg)
	}
}
