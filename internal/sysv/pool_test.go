package sysv

import (
	"reflect"
	"testing"
)

const mib = 1 << 20

func seg(id int, uid uint32, size uint64, huge HugeState, page uint64) SegmentInfo {
	return SegmentInfo{Segment: Segment{ID: id, UID: uid, SizeBytes: size}, Huge: huge, PageSizeBytes: page}
}

// The kernel reserves ceil(size/page) huge pages per segment; Oracle's
// script adds floor(size/page)+1 for segments of at least a page, nothing
// for smaller ones, plus one spare page.
func TestHugePagesNeededFormulas(t *testing.T) {
	cases := []struct {
		name          string
		size          uint64
		pages, oracle uint64
	}{
		{"PostgreSQL interlock, 56 B", 56, 1, 0},
		{"one byte under a page", 2*mib - 1, 1, 0},
		{"exactly one page", 2 * mib, 1, 2},
		{"one byte over", 2*mib + 1, 2, 2},
		{"exact 4 GiB SGA granules", 4 << 30, 2048, 2049},
		{"4 GiB + 8 KiB", 4<<30 + 8192, 2049, 2049},
	}
	for _, c := range cases {
		n := HugePagesNeeded([]SegmentInfo{seg(1, 0, c.size, HugeNo, 4096)}, 2*mib)
		if n.Total.Pages != c.pages || n.Total.OraclePages != c.oracle || n.OracleScriptPages != c.oracle+1 {
			t.Errorf("%s: pages %d oracle %d script %d; want %d, %d, %d",
				c.name, n.Total.Pages, n.Total.OraclePages, n.OracleScriptPages, c.pages, c.oracle, c.oracle+1)
		}
	}
}

func TestHugePagesNeededOwners(t *testing.T) {
	segs := []SegmentInfo{
		seg(1, 54321, 3<<30, HugeYes, 2*mib),       // Oracle SGA in huge pages
		seg(2, 54321, 12*mib+4096, HugeYes, 2*mib), // its small "variable" segment
		seg(3, 101, 56, HugeNo, 4096),              // PostgreSQL interlock
		seg(4, 27, 1<<30, HugeUnknown, 0),          // orphan, unknown
		seg(5, 54321, 1<<30, HugeYes, 1<<30),       // 1 GiB pages: another pool
	}
	n := HugePagesNeeded(segs, 2*mib)
	want := PoolNeed{
		PageSizeBytes: 2 * mib,
		Total: PoolCount{Segments: 4, Bytes: 3<<30 + 12*mib + 4096 + 56 + 1<<30,
			Pages: 1536 + 7 + 1 + 512, OraclePages: 1537 + 7 + 513,
			HugetlbSegments: 2, HugetlbBytes: 3<<30 + 12*mib + 4096, HugetlbPages: 1536 + 7},
		OracleScriptPages: 1 + 1537 + 7 + 513,
		Owners: []OwnerPool{
			{27, PoolCount{Segments: 1, Bytes: 1 << 30, Pages: 512, OraclePages: 513}},
			{101, PoolCount{Segments: 1, Bytes: 56, Pages: 1}},
			{54321, PoolCount{Segments: 2, Bytes: 3<<30 + 12*mib + 4096, Pages: 1543, OraclePages: 1544,
				HugetlbSegments: 2, HugetlbBytes: 3<<30 + 12*mib + 4096, HugetlbPages: 1543}},
		},
		OtherPageSize: []int{5},
	}
	if !reflect.DeepEqual(n, want) {
		t.Errorf("got\n%+v\nwant\n%+v", n, want)
	}
	if z := HugePagesNeeded(segs, 0); z.Total.Segments != 0 {
		t.Errorf("page size 0 should count nothing, got %+v", z)
	}
}
