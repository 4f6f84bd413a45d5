package archetype

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Tree is a generated archetype: files by slash-separated path under the
// archetype's directory (proc/..., sys/..., root/...).
type Tree map[string]string

// kernelAtLeast reports whether release is at least major.minor.
func kernelAtLeast(release string, major, minor int) bool {
	var a, b int
	fmt.Sscanf(release, "%d.%d", &a, &b)
	return a > major || a == major && b >= minor
}

func (s Spec) basePageKB() uint64 {
	if s.BasePageKB == 0 {
		return 4
	}
	return s.BasePageKB
}

func (s Spec) defaultHugeKB() uint64 {
	if s.DefaultHugeKB == 0 {
		return 2048
	}
	return s.DefaultHugeKB
}

func (s Spec) nodes() int { return max(s.NUMANodes, 1) }

// defaultSysctls are what an untouched kernel prints.
var defaultSysctls = map[string]string{
	"vm.overcommit_memory": "0", "vm.overcommit_ratio": "50", "vm.overcommit_kbytes": "0",
	"vm.swappiness": "60", "vm.hugetlb_shm_group": "0", "vm.zone_reclaim_mode": "0",
	"vm.min_free_kbytes": "67584", "vm.dirty_background_bytes": "0", "vm.dirty_bytes": "0",
	"vm.dirty_background_ratio": "10", "vm.dirty_ratio": "20",
	"kernel.shmmax": "18446744073692774399", "kernel.shmall": "18446744073692774399", "kernel.shmmni": "4096",
}

func (s Spec) sysctl(name string) string {
	if v, ok := s.Sysctl[name]; ok {
		return v
	}
	return defaultSysctls[name]
}

func (s Spec) writeHost(t Tree, posted postedMeminfo) {
	t["proc/sys/kernel/osrelease"] = s.Kernel + "\n"
	t["proc/sys/kernel/hostname"] = s.Hostname + "\n"
	names := make([]string, 0, len(defaultSysctls))
	for n := range defaultSysctls {
		names = append(names, n)
	}
	for n := range s.Sysctl {
		if _, ok := defaultSysctls[n]; !ok {
			names = append(names, n)
		}
	}
	for _, n := range names {
		t["proc/sys/"+strings.ReplaceAll(n, ".", "/")] = s.sysctl(n) + "\n"
	}
	def, _ := s.pool(s.defaultHugeKB())
	t["proc/sys/vm/nr_hugepages"] = fmt.Sprintf("%d\n", def.Total)
	t["proc/sys/vm/nr_overcommit_hugepages"] = fmt.Sprintf("%d\n", def.Overcommit)
	s.writeTHP(t)
	s.writePools(t)
	t["proc/meminfo"] = s.meminfo(posted)
}

func (s Spec) writeTHP(t Tree) {
	d := "sys/kernel/mm/transparent_hugepage/"
	t[d+"enabled"] = s.THP.Enabled + "\n"
	t[d+"defrag"] = orDefault(s.THP.Defrag, "always defer defer+madvise [madvise] never") + "\n"
	t[d+"shmem_enabled"] = orDefault(s.THP.ShmemEnabled, "always within_size advise [never] deny force") + "\n"
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// pool returns the spec's pool of a size, or an empty one.
func (s Spec) pool(kb uint64) (PoolSpec, bool) {
	for _, p := range s.Pools {
		if p.SizeKB == kb {
			return p, true
		}
	}
	return PoolSpec{SizeKB: kb}, false
}

// sizes are the page sizes the kernel offers: the pools given plus the default.
func (s Spec) sizes() []PoolSpec {
	out := append([]PoolSpec(nil), s.Pools...)
	if _, ok := s.pool(s.defaultHugeKB()); !ok {
		out = append(out, PoolSpec{SizeKB: s.defaultHugeKB()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SizeKB < out[j].SizeKB })
	return out
}

func (s Spec) writePools(t Tree) {
	for _, p := range s.sizes() {
		d := fmt.Sprintf("sys/kernel/mm/hugepages/hugepages-%dkB/", p.SizeKB)
		put := func(name string, v uint64) { t[d+name] = strconv.FormatUint(v, 10) + "\n" }
		put("nr_hugepages", p.Total+p.Surplus) // persistent + surplus, as sysfs shows it
		put("free_hugepages", p.Free)
		put("resv_hugepages", p.Rsvd)
		put("surplus_hugepages", p.Surplus)
		put("nr_overcommit_hugepages", p.Overcommit)
		put("nr_hugepages_mempolicy", p.Total)
		for n, total := range s.nodeSplit(p) {
			nd := fmt.Sprintf("sys/devices/system/node/node%d/hugepages/hugepages-%dkB/", n, p.SizeKB)
			free := uint64(0)
			if p.Total > 0 {
				free = p.Free * total / p.Total
			}
			t[nd+"nr_hugepages"] = fmt.Sprintf("%d\n", total)
			t[nd+"free_hugepages"] = fmt.Sprintf("%d\n", free)
			t[nd+"surplus_hugepages"] = "0\n"
		}
	}
	for n := 0; n < s.nodes(); n++ {
		t[fmt.Sprintf("sys/devices/system/node/node%d/cpulist", n)] = fmt.Sprintf("%d\n", n)
	}
}

// nodeSplit is each node's share of a pool.
func (s Spec) nodeSplit(p PoolSpec) []uint64 {
	if len(p.Nodes) > 0 {
		return p.Nodes
	}
	n := uint64(s.nodes())
	out := make([]uint64, n)
	for i := range out {
		out[i] = p.Total / n
	}
	out[0] += p.Total % n
	return out
}
