package pagecost

import (
	"slices"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

// The layout reads everything but shared, hugetlb, special and large text
// mappings, holes included, and distrusts the exclusive bit in a span that
// holds a mapping that may be hugetlb.
func TestLayoutOf(t *testing.T) {
	maps := []linux.Mapping{
		{Start: 0x10000, End: 0x11000, Perms: "r--p", Dev: "fe:01", Inode: 5, Path: "/usr/bin/postgres"},
		{Start: 0x11000, End: 0x92000, Perms: "r-xp", Dev: "fe:01", Inode: 5, Path: "/usr/bin/postgres"},
		{Start: 0x92000, End: 0x93000, Perms: "rw-p", Dev: "fe:01", Inode: 5, Path: "/usr/bin/postgres"},
		{Start: 0x93000, End: 0x94000, Perms: "r-xp", Dev: "fe:01", Inode: 6, Path: "/usr/lib/libsmall.so"},
		{Start: 0xa0000, End: 0xb0000, Perms: "rw-p", Path: "[heap]"},
		{Start: 0x100000, End: 0x500000, Perms: "rw-s", Dev: "00:01", Inode: 9, Path: "/dev/zero (deleted)"},
		{Start: 0x500000, End: 0x501000, Perms: "rw-p", Dev: "00:2a", Inode: 3, Path: "/dev/hugepages/x"},
		{Start: 0x600000, End: 0x602000, Perms: "r--p", Path: "[vvar]"},
		{Start: 0x602000, End: 0x604000, Perms: "rw-p", Path: "[stack]"},
		{Start: 0xffffffffff600000, End: 0xffffffffff601000, Perms: "--xp", Path: "[vsyscall]"},
	}
	vmas := make([]vma, len(maps))
	for i, m := range maps {
		vmas[i] = vmaOf(m)
	}
	l := layoutOf(vmas)
	want := []span{
		{start: 0, end: 0x11000, trustExclusive: true},
		{start: 0x92000, end: 0x100000, trustExclusive: true},
		{start: 0x500000, end: 0x600000, trustExclusive: false},
		{start: 0x602000, end: 0x604000, trustExclusive: true},
	}
	if !slices.Equal(l.spans, want) {
		t.Errorf("spans\n%+v\nwant\n%+v", l.spans, want)
	}
	// As privateSpans counts them: the shared segment, [vvar], [vsyscall].
	if want := uint64(0x400000 + 0x2000 + 0x1000); l.skippedBytes != want {
		t.Errorf("skipped %#x bytes, want %#x (the shared segment, [vvar] and [vsyscall])", l.skippedBytes, want)
	}
}

// Children of one parent are read along the first child's layout. A child
// that replaced part of the shared segment with private memory differs
// where the layout skips: its count falls short of RssAnon and it is read
// again from its own maps, still equal to smaps_rollup.
func TestSiblingLayout(t *testing.T) {
	requireRoot(t)
	const sharedMB, cowMB, privMB, children, thpMB, replaceMB = 256, 8, 4, 4, 0, 16
	fam := startSharer(t, buildSharer(t, t.TempDir()), sharedMB, cowMB, privMB, children, thpMB, replaceMB)
	fast, smaps, _, _ := measureBoth(t, fam.PIDs(), 1)
	for i, pid := range fam.Children {
		f, s := fast[pid], smaps[pid]
		t.Logf("child %d: Pss_Anon %d kB (smaps_rollup %d kB), sibling layout %v, text read %v",
			pid, f.PssAnonBytes>>10, s.PssAnonBytes>>10, f.Scan.SiblingLayout, f.Scan.TextRead)
		if f.PssAnonBytes>>10 != s.PssAnonBytes>>10 {
			t.Errorf("child %d: fast Pss_Anon %d kB, smaps_rollup %d kB: want equal", pid, f.PssAnonBytes>>10, s.PssAnonBytes>>10)
		}
		switch i {
		case 0:
			if f.Scan.SiblingLayout {
				t.Errorf("child %d: read along a sibling's layout; the first child gives the layout", pid)
			}
		case children - 1:
			if f.Scan.SiblingLayout || !f.Scan.TextRead {
				t.Errorf("child %d (replaced %d MiB of its shared segment): sibling layout %v, text read %v; want read again from its own maps",
					pid, replaceMB, f.Scan.SiblingLayout, f.Scan.TextRead)
			}
			if f.PssAnonBytes < replaceMB*mib {
				t.Errorf("child %d: Pss_Anon %d kB, want at least the %d MiB it wrote over the segment", pid, f.PssAnonBytes>>10, replaceMB)
			}
		default:
			if !f.Scan.SiblingLayout {
				t.Errorf("child %d: read from its own maps; want its sibling's layout", pid)
			}
		}
	}
}
