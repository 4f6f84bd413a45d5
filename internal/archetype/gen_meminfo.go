package archetype

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// Meminfo fields in the order each kernel generation prints them.
var (
	meminfo6 = strings.Fields(`MemTotal MemFree MemAvailable Buffers Cached SwapCached Active Inactive
		Active(anon) Inactive(anon) Active(file) Inactive(file) Unevictable Mlocked SwapTotal SwapFree
		Zswap Zswapped Dirty Writeback AnonPages Mapped Shmem KReclaimable Slab SReclaimable SUnreclaim
		KernelStack PageTables SecPageTables NFS_Unstable Bounce WritebackTmp CommitLimit Committed_AS
		VmallocTotal VmallocUsed VmallocChunk Percpu HardwareCorrupted AnonHugePages ShmemHugePages
		ShmemPmdMapped FileHugePages FilePmdMapped HugePages_Total HugePages_Free HugePages_Rsvd
		HugePages_Surp Hugepagesize Hugetlb DirectMap4k DirectMap2M DirectMap1G`)
	meminfo5 = strings.Fields(`MemTotal MemFree MemAvailable Buffers Cached SwapCached Active Inactive
		Active(anon) Inactive(anon) Active(file) Inactive(file) Unevictable Mlocked SwapTotal SwapFree
		Dirty Writeback AnonPages Mapped Shmem KReclaimable Slab SReclaimable SUnreclaim KernelStack
		PageTables NFS_Unstable Bounce WritebackTmp CommitLimit Committed_AS VmallocTotal VmallocUsed
		VmallocChunk Percpu HardwareCorrupted AnonHugePages ShmemHugePages ShmemPmdMapped FileHugePages
		FilePmdMapped HugePages_Total HugePages_Free HugePages_Rsvd HugePages_Surp Hugepagesize Hugetlb
		DirectMap4k DirectMap2M DirectMap1G`)
	// meminfo3 is RHEL/CentOS 7 (3.10.0-1160): MemAvailable backported, no
	// KReclaimable, no Hugetlb line.
	meminfo3 = strings.Fields(`MemTotal MemFree MemAvailable Buffers Cached SwapCached Active Inactive
		Active(anon) Inactive(anon) Active(file) Inactive(file) Unevictable Mlocked SwapTotal SwapFree
		Dirty Writeback AnonPages Mapped Shmem Slab SReclaimable SUnreclaim KernelStack PageTables
		NFS_Unstable Bounce WritebackTmp CommitLimit Committed_AS VmallocTotal VmallocUsed VmallocChunk
		HardwareCorrupted AnonHugePages CmaTotal CmaFree HugePages_Total HugePages_Free HugePages_Rsvd
		HugePages_Surp Hugepagesize DirectMap4k DirectMap2M DirectMap1G`)
)

func (s Spec) meminfoFields() []string {
	var f []string
	switch {
	case kernelAtLeast(s.Kernel, 6, 0):
		f = meminfo6
	case kernelAtLeast(s.Kernel, 4, 14):
		f = meminfo5
	default:
		f = meminfo3
	}
	if s.basePageKB() != 4 { // arm64: no DirectMap lines
		var out []string
		for _, n := range f {
			if !strings.HasPrefix(n, "DirectMap") {
				out = append(out, n)
			}
		}
		return out
	}
	return f
}

// postedMeminfo are the meminfo lines someone posted, verbatim, in order.
type postedMeminfo struct {
	lines map[string]string // by field name
	order []string
}

// mergeOrder is the kernel's field order with the posted fields it lacks
// (CmaTotal on a kernel built with CMA) placed after the field posted
// before them.
func (p postedMeminfo) mergeOrder(fields []string) []string {
	out := append([]string(nil), fields...)
	for i, name := range p.order {
		if slices.Contains(out, name) {
			continue
		}
		at := len(out)
		if i > 0 {
			if j := slices.Index(out, p.order[i-1]); j >= 0 {
				at = j + 1
			}
		}
		out = slices.Insert(out, at, name)
	}
	return out
}

// postedLines reads the posted meminfo lines by field name, verbatim.
func postedLines(dir, file string) (postedMeminfo, error) {
	p := postedMeminfo{lines: map[string]string{}}
	if file == "" {
		return p, nil
	}
	b, err := os.ReadFile(dir + "/posted/" + file)
	if err != nil {
		return p, err
	}
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if name, _, ok := strings.Cut(l, ":"); ok {
			p.lines[name] = l
			p.order = append(p.order, name)
		}
	}
	return p, nil
}

// meminfo writes every field: the posted line when there is one, else the
// spec's or derived value.
func (s Spec) meminfo(posted postedMeminfo) string {
	var b strings.Builder
	for _, name := range posted.mergeOrder(s.meminfoFields()) {
		if l, ok := posted.lines[name]; ok {
			b.WriteString(l + "\n")
			continue
		}
		v := s.meminfoValue(name)
		if strings.HasPrefix(name, "HugePages_") {
			fmt.Fprintf(&b, "%-16s%8d\n", name+":", v)
			continue
		}
		fmt.Fprintf(&b, "%-16s%8d kB\n", name+":", v)
	}
	return b.String()
}

func (s Spec) meminfoValue(name string) uint64 {
	if v, ok := s.Meminfo[name]; ok {
		return v
	}
	total := s.Meminfo["MemTotal"]
	def, _ := s.pool(s.defaultHugeKB())
	switch name {
	case "MemFree":
		return total / 10
	case "MemAvailable":
		return total / 2
	case "SwapFree":
		return s.Meminfo["SwapTotal"]
	case "HugePages_Total":
		return def.Total + def.Surplus
	case "HugePages_Free":
		return def.Free
	case "HugePages_Rsvd":
		return def.Rsvd
	case "HugePages_Surp":
		return def.Surplus
	case "Hugepagesize":
		return s.defaultHugeKB()
	case "Hugetlb":
		return s.hugetlbKB()
	case "CommitLimit":
		return s.commitLimitKB()
	case "Committed_AS":
		return total / 4
	case "PageTables":
		return 20480
	case "VmallocTotal":
		return 34359738367
	case "Cached":
		return total / 4
	case "AnonPages":
		return total / 8
	case "Shmem":
		return 65536
	case "KernelStack":
		return 8192
	case "Slab":
		return total / 50
	case "SReclaimable", "KReclaimable":
		return total / 70
	case "SUnreclaim":
		return total/50 - total/70
	case "Buffers":
		return total / 100
	case "DirectMap2M":
		return total
	}
	return 0
}

// hugetlbKB is every pool's memory (Hugetlb in meminfo).
func (s Spec) hugetlbKB() uint64 {
	var kb uint64
	for _, p := range s.Pools {
		kb += (p.Total + p.Surplus) * p.SizeKB
	}
	return kb
}

// commitLimitKB is the kernel's CommitLimit: (MemTotal - hugetlb pools) x
// overcommit_ratio / 100 + SwapTotal, or overcommit_kbytes + SwapTotal.
func (s Spec) commitLimitKB() uint64 {
	var ratio, kbytes uint64
	fmt.Sscan(s.sysctl("vm.overcommit_ratio"), &ratio)
	fmt.Sscan(s.sysctl("vm.overcommit_kbytes"), &kbytes)
	swap := s.Meminfo["SwapTotal"]
	if kbytes > 0 {
		return kbytes + swap
	}
	var pool uint64
	for _, p := range s.Pools {
		pool += (p.Total + p.Surplus) * p.SizeKB // hugetlb_total_pages counts surplus pages too
	}
	return (s.Meminfo["MemTotal"]-pool)*ratio/100 + swap
}
