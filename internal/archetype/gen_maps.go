package archetype

import (
	"cmp"
	"fmt"
	"strings"
)

// allMaps are the process's mappings: its binary, heap and stack, then the
// shared memory it attaches, at fixed addresses.
func (s Spec) allMaps(p proc) []mapping {
	bin := "/usr/bin/" + p.comm
	if len(p.args) > 0 && strings.HasPrefix(p.args[0], "/") {
		bin = strings.Fields(p.args[0])[0]
	}
	base := s.basePageKB()
	out := []mapping{
		{start: 0x55d000000000, sizeKB: 5332, perms: "r-xp", path: bin, inode: 1311000 + uint64(len(bin)), pageKB: base, rssKB: min(p.fileKB, 5332), flags: "rd ex mr mw me"},
		{start: 0x55d100000000, sizeKB: roundUp(p.anonKB+4096, base), perms: "rw-p", path: "[heap]", pageKB: base, rssKB: p.anonKB, anonKB: p.anonKB, flags: "rd wr mr mw me ac"},
	}
	addr := uint64(0x7f0000000000)
	for _, m := range p.maps {
		m.start = cmp.Or(m.start, addr)
		addr = m.start + roundUp(m.sizeKB, 1<<20)*1024 + 1<<30
		out = append(out, m)
	}
	return append(out, mapping{start: 0x7ffc00000000, sizeKB: 132, perms: "rw-p", path: "[stack]", pageKB: base, rssKB: 32, anonKB: 32, flags: "rd wr mr mw me gd ac"})
}

func roundUp(v, to uint64) uint64 { return (v + to - 1) / to * to }

func (m mapping) header() string {
	dev := "00:00"
	if m.inode != 0 {
		dev = "00:01"
	}
	line := fmt.Sprintf("%x-%x %s 00000000 %s %d", m.start, m.start+m.sizeKB*1024, m.perms, dev, m.inode)
	if m.path != "" {
		line = fmt.Sprintf("%-73s%s", line, m.path)
	}
	return line + "\n"
}

func (s Spec) maps(p proc) string {
	var b strings.Builder
	for _, m := range s.allMaps(p) {
		b.WriteString(m.header())
	}
	return b.String()
}

func (s Spec) smaps(p proc) string {
	var b strings.Builder
	kb := func(k string, v uint64) { fmt.Fprintf(&b, "%-16s%8d kB\n", k+":", v) }
	for _, m := range s.allMaps(p) {
		b.WriteString(m.header())
		kb("Size", m.sizeKB)
		kb("KernelPageSize", m.pageKB)
		kb("MMUPageSize", m.pageKB)
		kb("Rss", m.rssKB)
		kb("Pss", m.rssKB)
		shared := m.rssKB - m.anonKB
		if m.perms[3] == 'p' {
			shared = 0
		}
		kb("Shared_Clean", 0)
		kb("Shared_Dirty", shared)
		kb("Private_Clean", 0)
		kb("Private_Dirty", m.rssKB-shared)
		kb("Referenced", m.rssKB)
		kb("Anonymous", m.anonKB)
		kb("LazyFree", 0)
		kb("AnonHugePages", 0)
		kb("ShmemPmdMapped", 0)
		kb("FilePmdMapped", 0)
		kb("Shared_Hugetlb", m.sharedHugeKB)
		kb("Private_Hugetlb", m.privHKB)
		kb("Swap", 0)
		kb("SwapPss", 0)
		kb("Locked", 0)
		fmt.Fprintf(&b, "THPeligible:    0\nVmFlags: %s \n", m.flags)
	}
	return b.String()
}

func (s Spec) rollup(p proc) string {
	var b strings.Builder
	kb := func(k string, v uint64) { fmt.Fprintf(&b, "%-16s%8d kB\n", k+":", v) }
	rss := p.anonKB + p.fileKB + p.shmemKB
	pssAnon := p.anonKB
	if p.pssAnonKB != nil {
		pssAnon = *p.pssAnonKB
	}
	pssFile, pssShmem := p.fileKB/4, p.shmemKB/4
	b.WriteString("55d000000000-7ffc00021000 ---p 00000000 00:00 0                          [rollup]\n")
	kb("Rss", rss)
	kb("Pss", pssAnon+pssFile+pssShmem)
	if kernelAtLeast(s.Kernel, 5, 8) {
		kb("Pss_Anon", pssAnon)
		kb("Pss_File", pssFile)
		kb("Pss_Shmem", pssShmem)
	}
	kb("Shared_Clean", p.fileKB)
	kb("Shared_Dirty", p.shmemKB)
	kb("Private_Clean", 0)
	kb("Private_Dirty", p.anonKB)
	kb("Referenced", rss)
	kb("Anonymous", p.anonKB)
	kb("LazyFree", 0)
	kb("AnonHugePages", 0)
	kb("ShmemPmdMapped", 0)
	kb("FilePmdMapped", 0)
	var sh, pr uint64
	for _, m := range p.maps {
		sh += m.sharedHugeKB
		pr += m.privHKB
	}
	kb("Shared_Hugetlb", sh)
	kb("Private_Hugetlb", pr)
	kb("Swap", p.swapKB)
	kb("SwapPss", p.swapKB)
	kb("Locked", 0)
	return b.String()
}
