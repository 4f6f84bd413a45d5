package pagecost

import (
	"slices"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

const pg = 4096

// word builds a pagemap entry.
func word(pfn uint64, flags ...uint64) uint64 {
	w := pfn
	for _, f := range flags {
		w |= f
	}
	return w
}

func TestTallyAdd(t *testing.T) {
	words := []uint64{
		0,                                 // not present
		word(7, pmSwap),                   // swapped: VmSwap, not Pss_Anon
		word(100, pmPresent, pmFile),      // file page or shmem
		word(101, pmPresent, pmExclusive), // anon, mapped once
		word(200, pmPresent),              // shared copy-on-write: look up
		word(201, pmPresent),              // physically next: same run
		word(205, pmPresent),              // KSM, zero page, ...: look up
	}
	var tl tally
	tl.add(words, 1, true) // vpn 1: no page has pfn%512 == vpn%512
	if tl.exclusive != 1 || tl.entries != 7 || tl.pfnHidden {
		t.Errorf("exclusive %d, entries %d, hidden %v", tl.exclusive, tl.entries, tl.pfnHidden)
	}
	if want := []pfnRun{{200, 2}, {205, 1}}; !slices.Equal(tl.lookup, want) || tl.lookedUp() != 3 {
		t.Errorf("lookup %v, want %v", tl.lookup, want)
	}
	var untrusted tally
	untrusted.add(words, 1, false)
	if untrusted.exclusive != 0 || untrusted.lookedUp() != 4 {
		t.Errorf("may-be-hugetlb mapping: exclusive %d, looked up %d; want 0 and 4", untrusted.exclusive, untrusted.lookedUp())
	}
}

// A PMD-mapped THP: kernel 6.18 marks every page exclusive when the head
// page is mapped once; such pages are looked up anyway.
func TestTallyTHPNotTrusted(t *testing.T) {
	words := make([]uint64, pmdPages)
	for i := range words {
		words[i] = word(1024+uint64(i), pmPresent, pmExclusive)
	}
	var tl tally
	tl.add(words, 3*pmdPages, true)
	if tl.exclusive != 0 || !slices.Equal(tl.lookup, []pfnRun{{1024, pmdPages}}) {
		t.Errorf("THP: exclusive %d, lookup %v; want all %d pages in one run", tl.exclusive, tl.lookup, pmdPages)
	}
}

func TestTallyPFNHidden(t *testing.T) {
	var tl tally
	tl.add([]uint64{word(0, pmPresent, pmExclusive), word(0, pmPresent)}, 1, true)
	if !tl.pfnHidden || tl.exclusive != 0 || len(tl.lookup) != 0 {
		t.Errorf("PFNs hidden: %+v", tl)
	}
}

func TestAnonShare(t *testing.T) {
	full := uint64(pg) << pssShift
	for _, tc := range []struct {
		name string
		info pageInfo
		want uint64
	}{
		{"anon mapped once", pageInfo{1, kpfAnon}, full},
		{"anon mapcount 0 (unmapped since)", pageInfo{0, kpfAnon}, full},
		{"anon shared by 3", pageInfo{3, kpfAnon}, full / 3},
		{"KSM shared by 7", pageInfo{7, kpfAnon | kpfKSM}, full / 7},
		{"THP page shared by 5", pageInfo{5, kpfAnon | kpfTHP}, full / 5},
		{"file page", pageInfo{1, 0}, 0},
		{"zero page", pageInfo{9, kpfZeroPage}, 0},
		{"huge zero page", pageInfo{9, kpfZeroPage | kpfTHP}, 0},
		{"hugetlb anon", pageInfo{1, kpfAnon | kpfHuge}, 0},
	} {
		if got := anonShare(tc.info, pg); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestPssAnonRounding checks the kernel's fixed point: three pages each
// shared by 3 add up to exactly one page only after the final shift.
func TestPssAnonRounding(t *testing.T) {
	tl := tally{exclusive: 2, lookup: []pfnRun{{10, 3}, {50, 1}, {99, 1}}}
	pt := &pageTable{
		runs: []pfnRun{{10, 3}, {50, 1}},
		info: [][]pageInfo{{{3, kpfAnon}, {3, kpfAnon}, {3, kpfAnon}}, {{1, 0}}},
	}
	// 2 full pages + 3 x floor(4096<<12 / 3) >> 12 = 8192 + 4095; PFN 99 is
	// not in the table (past the end of kpagecount) and counts 0. The page
	// at PFN 50 is not anonymous: 2 + 3 anonymous pages.
	if got, anon := pssAnon(&tl, pt, pg); got != 8192+4095 || anon != 5 {
		t.Errorf("Pss_Anon %d, %d anonymous pages; want %d, 5", got, anon, 8192+4095)
	}
}

func TestPlanRuns(t *testing.T) {
	// Overlaps merge; gaps up to 32 PFNs are bridged unless the run would
	// pass 605 PFNs.
	in := []pfnRun{{100, 2}, {10, 1}, {100, 1}, {12, 1}, {60, 1}, {90, 1}, {1000, 600}, {1610, 1}}
	got := planRuns(in, 32, 605)
	want := []pfnRun{{10, 3}, {60, 42}, {1000, 600}, {1610, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("planRuns = %v, want %v", got, want)
	}
	pt := &pageTable{runs: got}
	for pfn, idx := range map[uint64]int{10: 0, 12: 0, 13: -1, 101: 1, 1599: 2, 1600: -1, 1610: 3, 5: -1} {
		if i := pt.find(pfn); i != idx {
			t.Errorf("find(%d) = %d, want %d", pfn, i, idx)
		}
	}
}

func TestMergeRanges(t *testing.T) {
	got := mergeRanges([][2]uint64{{0, 4096}, {8192, 12288}, {1 << 20, 2 << 20}}, 16<<10)
	if want := [][2]uint64{{0, 12288}, {1 << 20, 2 << 20}}; !slices.Equal(got, want) {
		t.Errorf("mergeRanges = %v, want %v", got, want)
	}
}

func TestClassifyAndSpans(t *testing.T) {
	maps := []linux.Mapping{
		{Start: 0x1000, End: 0x3000, Perms: "r--p", Dev: "fe:01", Inode: 5, Path: "/usr/lib/postgresql/15/bin/postgres"},
		{Start: 0x3000, End: 0x4000, Perms: "rw-p", Path: "[heap]"},
		{Start: 0x10000, End: 0x40010000, Perms: "rw-s", Dev: "00:01", Inode: 9, Path: "/dev/zero (deleted)"},
		{Start: 0x40010000, End: 0x40020000, Perms: "rw-p"},
		{Start: 0x40020000, End: 0x40030000, Perms: "rw-p", Dev: "00:2a", Inode: 3, Path: "/dev/hugepages/x"},
		{Start: 0x40030000, End: 0x40230000, Perms: "rw-p", Dev: "00:0f", Inode: 4, Path: "/anon_hugepage (deleted)"},
		{Start: 0x7fff0000, End: 0x7fff2000, Perms: "r--p", Path: "[vvar]"},
		{Start: 0xffffffffff600000, End: 0xffffffffff601000, Perms: "--xp", Path: "[vsyscall]"},
	}
	wantAct := []vmaAction{vmaRead, vmaRead, vmaSkipShared, vmaRead, vmaReadCheck, vmaSkipHugetlb, vmaSkipSpecial, vmaSkipSpecial}
	for i, m := range maps {
		if got := classifyVMA(m); got != wantAct[i] {
			t.Errorf("%s %s: action %d, want %d", m.Perms, m.Path, got, wantAct[i])
		}
	}
	vmas := make([]vma, len(maps))
	for i, m := range maps {
		vmas[i] = vmaOf(m)
	}
	p := privateSpans(vmas, false, nil)
	spans := p.spans
	if len(spans) != 3 || spans[0].start != 0x1000 || spans[0].end != 0x4000 || spans[0].first != 0 || spans[0].last != 1 ||
		spans[1].start != 0x40010000 || !spans[1].trustExclusive || spans[2].trustExclusive || p.codeDeferred {
		t.Errorf("spans %+v, text deferred %v", spans, p.codeDeferred)
	}
	if want := uint64(0x40000000 + 0x200000 + 0x2000 + 0x1000); p.skippedBytes != want {
		t.Errorf("skipped %d bytes, want %d", p.skippedBytes, want)
	}
}

// Text (r-xp of a file) larger than smallTextBytes splits spans and is
// read only when asked; smaller text is read with the data around it.
func TestTextDeferred(t *testing.T) {
	maps := []linux.Mapping{
		{Start: 0x1000, End: 0x2000, Perms: "r--p", Dev: "fe:01", Inode: 5, Path: "/usr/lib/libc.so.6"},
		{Start: 0x2000, End: 0x102000, Perms: "r-xp", Dev: "fe:01", Inode: 5, Path: "/usr/lib/libc.so.6"},
		{Start: 0x102000, End: 0x103000, Perms: "rw-p", Dev: "fe:01", Inode: 5, Path: "/usr/lib/libc.so.6"},
		{Start: 0x103000, End: 0x104000, Perms: "r-xp", Path: "[anon executable]"},
		{Start: 0x104000, End: 0x105000, Perms: "rwxp", Dev: "fe:01", Inode: 7, Path: "/opt/jit.so"},
		{Start: 0x105000, End: 0x106000, Perms: "r-xp", Dev: "fe:01", Inode: 8, Path: "/usr/lib/libsmall.so"},
		{Start: 0x106000, End: 0x107000, Perms: "rw-p", Dev: "fe:01", Inode: 8, Path: "/usr/lib/libsmall.so"},
	}
	vmas := make([]vma, len(maps))
	for i, m := range maps {
		vmas[i] = vmaOf(m)
	}
	without := privateSpans(vmas, false, nil)
	if len(without.spans) != 2 || without.spans[0].end != 0x2000 || without.spans[1].start != 0x102000 ||
		without.spans[1].end != 0x107000 || !without.codeDeferred {
		t.Errorf("without text: spans %+v, deferred %v; want [0x1000,0x2000) and [0x102000,0x107000), deferred", without.spans, without.codeDeferred)
	}
	with := privateSpans(vmas, true, nil)
	if len(with.spans) != 1 || with.spans[0].start != 0x1000 || with.spans[0].end != 0x107000 || with.codeDeferred {
		t.Errorf("with text: spans %+v, deferred %v; want one span [0x1000,0x107000)", with.spans, with.codeDeferred)
	}
}

func TestMethodAndCost(t *testing.T) {
	for _, s := range []string{"fast", "smaps", "status"} {
		m, err := ParseMethod(s)
		if err != nil || m.String() != s {
			t.Errorf("ParseMethod(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseMethod("pss"); err == nil {
		t.Error("ParseMethod(pss): no error")
	}
	c := Cost{Method: MethodStatus, PssAnonBytes: 1, RssAnonBytes: new(uint64(10)), VmPTEBytes: new(uint64(2)), VmSwapBytes: new(uint64(3))}
	if v, ok := c.PrivateBytes(); c.Exact() || v != 15 || !ok {
		t.Errorf("status cost: exact %v, private %d %v", c.Exact(), v, ok)
	}
	c.Method = MethodFast
	if v, ok := c.PrivateBytes(); !c.Exact() || v != 6 || !ok {
		t.Errorf("fast cost: exact %v, private %d %v", c.Exact(), v, ok)
	}
	c.Method, c.RssAnonBytes = MethodStatus, nil
	if _, ok := c.PrivateBytes(); ok {
		t.Error("status cost known without RssAnon (a kernel before 4.5)")
	}
}

func TestFallbacks(t *testing.T) {
	root := &FallbackError{Reason: ReasonNotRoot, Path: "/proc/kpagecount"}
	denied := &FallbackError{Reason: ReasonPagemapDenied, Path: "/proc/9/pagemap"}
	got := Fallbacks([]Cost{{Fallback: root}, {}, {Fallback: denied}, {Fallback: root}})
	if len(got) != 2 || got[0] != root || got[1] != denied {
		t.Errorf("Fallbacks = %v", got)
	}
	if want := "exact fast path needs root to read /proc/kpagecount; fell back to smaps_rollup: " + smapsCostNote; root.Error() != want {
		t.Errorf("message %q", root.Error())
	}
}

// classifyVMA decides how the fast path treats a mapping.
func classifyVMA(m linux.Mapping) vmaAction {
	return classify(m.Shared(), m.Dev, m.Inode, m.Path, m.End)
}

// vmaOf is what parseMapsActions makes of a parsed maps line.
func vmaOf(m linux.Mapping) vma {
	return vma{start: m.Start, end: m.End, act: classifyVMA(m), code: isCode(m.Perms, m.Inode)}
}
