package linux

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/treetest"
)

// hostTree writes a minimal root: meminfo and the given sysfs pool files.
func hostTree(t *testing.T, meminfo string, sys map[string]string) FS {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"proc/meminfo": meminfo}
	for k, v := range sys {
		files["sys/"+k] = v
	}
	treetest.Write(t, dir, files)
	return FS{Proc: filepath.Join(dir, "proc"), Sys: filepath.Join(dir, "sys"), Root: dir}
}

const grepHuge400 = "HugePages_Total:     400\nHugePages_Free:      400\nHugePages_Rsvd:        0\nHugePages_Surp:        0\nHugepagesize:     2048 kB\n"

func sysPool(kb, total, free string) map[string]string {
	d := "kernel/mm/hugepages/hugepages-" + kb + "kB/"
	return map[string]string{d + "nr_hugepages": total, d + "free_hugepages": free, d + "resv_hugepages": "0",
		d + "surplus_hugepages": "0", d + "nr_overcommit_hugepages": "0"}
}

func TestPoolFromMeminfoWithoutSysfs(t *testing.T) {
	h, gaps, err := ReadHost(hostTree(t, grepHuge400, nil))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := h.DefaultPool()
	if !ok || p.Total != 400 || p.Source != PoolFromMeminfo || p.Overcommit != nil {
		t.Errorf("default pool %+v %v: want 400 pages from meminfo, overcommit unknown", p, ok)
	}
	if !hasGap(gaps, "huge page pools (/sys/kernel/mm/hugepages)") || !hasGap(gaps, "/proc/meminfo lines MemTotal") {
		t.Errorf("gaps %v: want sysfs and the missing meminfo lines named", gaps)
	}
}

func TestPoolFromSysfsWhenMeminfoLacksIt(t *testing.T) {
	h, gaps, err := ReadHost(hostTree(t, "MemTotal: 1000 kB\n", sysPool("1048576", "4", "4")))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := h.Pool(1 << 30); !ok || p.Total != 4 || p.Source != PoolFromSysfs {
		t.Errorf("1 GiB pool %+v %v", p, ok)
	}
	if _, ok := h.DefaultPool(); ok {
		t.Error("a default pool without a Hugepagesize line")
	}
	if hasGap(gaps, "default huge page pool") {
		t.Errorf("gaps %v: meminfo has no huge page line at all, nothing to reconcile", gaps)
	}
}

func TestPoolsDisagree(t *testing.T) {
	_, gaps, err := ReadHost(hostTree(t, grepHuge400, sysPool("2048", "512", "512")))
	if err != nil {
		t.Fatal(err)
	}
	if !hasGap(gaps, "huge page pool of 2048 kB") || !strings.Contains(gapWhy(gaps, "huge page pool of 2048 kB"), "HugePages_Total 400 in meminfo, 512 in sysfs") {
		t.Errorf("gaps %v: want the disagreement said", gaps)
	}
}

func TestPoolUnknownPageSize(t *testing.T) {
	h, gaps, err := ReadHost(hostTree(t, "HugePages_Total:     400\nHugePages_Free:      400\n", nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.HugePools) != 0 {
		t.Errorf("pools %+v from a meminfo without Hugepagesize", h.HugePools)
	}
	if !strings.Contains(gapWhy(gaps, "default huge page pool in /proc/meminfo"), "default huge page size is unknown") {
		t.Errorf("gaps %v: want the unknown page size said", gaps)
	}
}

func hasGap(gaps []Gap, prefix string) bool { return gapWhy(gaps, prefix) != "" }

func gapWhy(gaps []Gap, prefix string) string {
	for _, g := range gaps {
		if strings.HasPrefix(g.What, prefix) {
			return g.Why
		}
	}
	return ""
}
