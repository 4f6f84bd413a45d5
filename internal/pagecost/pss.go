package pagecost

import (
	"cmp"
	"slices"
)

// Bits of /proc/kpageflags (include/uapi/linux/kernel-page-flags.h).
const (
	kpfAnon     = uint64(1) << 12
	kpfHuge     = uint64(1) << 17 // hugetlbfs page
	kpfKSM      = uint64(1) << 21
	kpfTHP      = uint64(1) << 22
	kpfZeroPage = uint64(1) << 24 // the zero page or the huge zero page
)

// pssShift is the kernel's fixed-point shift for PSS (fs/proc/task_mmu.c):
// each page adds (PAGE_SIZE << 12) / mapcount, and the sum is shifted back
// once, so rounding matches smaps_rollup exactly.
const pssShift = 12

// pageInfo is what /proc/kpagecount and /proc/kpageflags say about a PFN.
type pageInfo struct {
	mapcount uint64
	flags    uint64
}

// anonShare is a page's contribution to Pss_Anon in fixed point (bytes <<
// pssShift), as smaps_account computes it: a page that is not anonymous
// (file, shmem, special mapping), the zero page and hugetlb pages count 0;
// a page mapped N >= 2 times counts PAGE_SIZE/N; otherwise PAGE_SIZE. KSM
// pages are anonymous and divided by their mapcount like any other. THP
// pages are read one by one: kpagecount gives the precise per-page mapcount
// (the folio's entire mapcount plus the page's own), which is what
// smaps_rollup divides by for a PMD-mapped THP too.
func anonShare(info pageInfo, pageSize uint64) uint64 {
	if info.flags&kpfAnon == 0 || info.flags&(kpfZeroPage|kpfHuge) != 0 {
		return 0
	}
	pss := pageSize << pssShift
	if info.mapcount >= 2 {
		pss /= info.mapcount
	}
	return pss
}

// pfnRun is a range of consecutive PFNs.
type pfnRun struct {
	first, n uint64
}

func (r pfnRun) end() uint64 { return r.first + r.n }

// pageTable holds the page info of the PFNs read, as disjoint sorted runs.
type pageTable struct {
	runs []pfnRun
	info [][]pageInfo // info[i][j] is PFN runs[i].first+j
}

// find returns the index of the run holding pfn, or -1.
func (pt *pageTable) find(pfn uint64) int {
	i, _ := slices.BinarySearchFunc(pt.runs, pfn, func(r pfnRun, p uint64) int {
		if r.end() <= p {
			return -1
		}
		if r.first > p {
			return 1
		}
		return 0
	})
	if i < len(pt.runs) && pt.runs[i].first <= pfn && pfn < pt.runs[i].end() {
		return i
	}
	return -1
}

// pssAnon turns a tally and the page table into Pss_Anon bytes, and counts
// the anonymous pages mapped (what status's RssAnon counts, in pages). A
// PFN missing from the table (past the end of kpagecount) counts 0.
func pssAnon(t *tally, pt *pageTable, pageSize uint64) (pssBytes, anonPages uint64) {
	fixed := t.exclusive * (pageSize << pssShift)
	anonPages = t.exclusive
	for _, r := range t.lookup {
		for pfn := r.first; pfn < r.end(); pfn++ {
			i := pt.find(pfn)
			if i < 0 {
				continue
			}
			info := pt.info[i]
			// The lookup run lies within one table run: walk it directly.
			for ; pfn < r.end() && pfn < pt.runs[i].end(); pfn++ {
				share := anonShare(info[pfn-pt.runs[i].first], pageSize)
				fixed += share
				if share > 0 {
					anonPages++
				}
			}
			pfn--
		}
	}
	return fixed >> pssShift, anonPages
}

// planRuns merges runs into the disjoint runs to read, sorted, bridging
// gaps of up to maxGap PFNs (reading a few unneeded 8-byte entries costs
// less than a system call) as long as the merged run stays within maxLen.
// Overlapping runs (the same pages wanted by several processes) are always
// merged. It sorts runs in place and writes the result over it.
func planRuns(runs []pfnRun, maxGap, maxLen uint64) []pfnRun {
	slices.SortFunc(runs, func(a, b pfnRun) int { return cmp.Compare(a.first, b.first) })
	out := runs[:0]
	for _, r := range runs {
		if k := len(out) - 1; k >= 0 {
			last := &out[k]
			if r.first <= last.end() || r.first-last.end() <= maxGap && r.end()-last.first <= maxLen {
				last.n = max(last.end(), r.end()) - last.first
				continue
			}
		}
		out = append(out, r)
	}
	return out
}
