package pagecost

// Bits of a /proc/PID/pagemap entry (Documentation/admin-guide/mm/pagemap.rst).
const (
	pmPresent   = uint64(1) << 63
	pmSwap      = uint64(1) << 62
	pmFile      = uint64(1) << 61 // file page or shared anon (shmem)
	pmExclusive = uint64(1) << 56 // mapped exactly once
	pmPFNMask   = uint64(1)<<55 - 1
)

// pmdPages is the number of base pages in a PMD-mapped THP (2 MiB / 4 KiB
// on x86-64).
const pmdPages = 512

// tally is what one process's pagemap entries say about its anonymous
// pages. It is filled by add and turned into bytes by pssAnon.
type tally struct {
	// exclusive counts present anonymous pages mapped once: each is a full
	// page of Pss_Anon without a lookup.
	exclusive uint64
	// lookup holds runs of consecutive PFNs of present pages that may be
	// anonymous and are not known to be mapped once: their share needs
	// /proc/kpagecount and /proc/kpageflags (pages shared copy-on-write
	// after fork, KSM pages, the zero page, special mappings, THP pages,
	// and every page of a mapping that may be hugetlb). A page mapped twice
	// by the process appears twice.
	lookup []pfnRun
	// entries counts the pagemap entries examined.
	entries uint64
	// pfnHidden is set when a present page has PFN 0: the kernel hides
	// PFNs from readers without CAP_SYS_ADMIN.
	pfnHidden bool
}

// add classifies the pagemap entries of the pages starting at virtual page
// number vpn. File pages (bit 61) are never in Pss_Anon; swapped entries
// (bit 62) are in VmSwap, not Pss_Anon.
//
// The exclusive bit (56) is trusted only when trustExclusive is true (the
// mapping cannot be hugetlb, which smaps_rollup leaves out of Pss_Anon) and
// the page does not look like part of a PMD-mapped THP: for those, kernel
// 6.18 sets bit 56 on every base page when the head page is mapped once,
// even where kpagecount says 5 (measured), so they are looked up. A page
// looks like THP when its PFN and its virtual address have the same offset
// within 2 MiB, which every page of a PMD mapping has and one in 512 other
// pages has by chance (looked up needlessly, still exact).
func (t *tally) add(words []uint64, vpn uint64, trustExclusive bool) {
	t.entries += uint64(len(words))
	for i, w := range words {
		if w&pmPresent == 0 || w&pmFile != 0 {
			continue
		}
		pfn := w & pmPFNMask
		if pfn == 0 {
			t.pfnHidden = true
			continue
		}
		thpLike := pfn%pmdPages == (vpn+uint64(i))%pmdPages
		if trustExclusive && w&pmExclusive != 0 && !thpLike {
			t.exclusive++
			continue
		}
		t.push(pfn)
	}
}

// push appends pfn to the lookup runs, extending the last run when the
// pages are physically consecutive (THPs, fresh allocations).
func (t *tally) push(pfn uint64) {
	if k := len(t.lookup) - 1; k >= 0 && t.lookup[k].first+t.lookup[k].n == pfn {
		t.lookup[k].n++
		return
	}
	t.lookup = append(t.lookup, pfnRun{first: pfn, n: 1})
}

// lookedUp is the number of pages in the lookup runs.
func (t *tally) lookedUp() uint64 {
	var n uint64
	for _, r := range t.lookup {
		n += r.n
	}
	return n
}
