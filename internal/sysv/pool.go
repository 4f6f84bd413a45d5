package sysv

import (
	"github.com/dbmem/dbmem/internal/units"

	"cmp"
	"slices"
)

// PoolCount counts the huge pages a set of segments needs.
type PoolCount struct {
	Segments int
	Bytes    uint64 // sum of segment sizes

	// Pages is the sum over segments of ceil(size / page size): what
	// shmget(SHM_HUGETLB) reserves (the kernel rounds each segment up to
	// whole huge pages) and what the pool must hold for them.
	Pages uint64
	// OraclePages is what Oracle's hugepages_settings.sh adds per segment:
	// floor(size / page size) + 1 for segments of at least one page, nothing
	// for smaller ones. It equals Pages except for a segment whose size is an
	// exact multiple of the page (one page more) or smaller than a page (one
	// page less).
	OraclePages uint64

	// Of those, the segments already in huge pages of this size.
	HugetlbSegments int
	HugetlbBytes    uint64 // their sizes: the memlock Oracle and MySQL ask for
	HugetlbPages    uint64 // the pages they reserve or hold
}

func (c *PoolCount) add(s SegmentInfo, page uint64) {
	c.Segments++
	c.Bytes += s.SizeBytes
	c.Pages += units.CeilDiv(s.SizeBytes, page)
	if whole := s.SizeBytes / page; whole > 0 {
		c.OraclePages += whole + 1
	}
	if s.Huge == HugeYes {
		c.HugetlbSegments++
		c.HugetlbBytes += s.SizeBytes
		c.HugetlbPages += units.CeilDiv(s.SizeBytes, page)
	}
}

// OwnerPool is the count for the segments of one owner (the uid column).
type OwnerPool struct {
	UID uint32
	PoolCount
}

// PoolNeed is the huge page pool that the segments need, in pages of
// PageSizeBytes.
type PoolNeed struct {
	PageSizeBytes uint64
	Total         PoolCount
	// OracleScriptPages is what hugepages_settings.sh recommends:
	// 1 + Total.OraclePages (it starts its count at one spare page).
	OracleScriptPages uint64
	Owners            []OwnerPool // by UID
	// OtherPageSize lists the shmids of segments in huge pages of another
	// size (SHM_HUGE_1GB); they are in another pool and not counted.
	OtherPageSize []int
}

// HugePagesNeeded counts the pool of huge pages of pageSizeBytes that the
// segments need: all of them, as Oracle's script does, whether they are in
// huge pages now or not. Filter segs first to size the pool of one instance.
func HugePagesNeeded(segs []SegmentInfo, pageSizeBytes uint64) PoolNeed {
	need := PoolNeed{PageSizeBytes: pageSizeBytes}
	if pageSizeBytes == 0 {
		return need
	}
	owners := map[uint32]*OwnerPool{}
	for _, s := range segs {
		if s.Huge == HugeYes && s.PageSizeBytes != pageSizeBytes {
			need.OtherPageSize = append(need.OtherPageSize, s.ID)
			continue
		}
		need.Total.add(s, pageSizeBytes)
		o := owners[s.UID]
		if o == nil {
			o = &OwnerPool{UID: s.UID}
			owners[s.UID] = o
		}
		o.add(s, pageSizeBytes)
	}
	need.OracleScriptPages = 1 + need.Total.OraclePages
	for _, o := range owners {
		need.Owners = append(need.Owners, *o)
	}
	slices.SortFunc(need.Owners, func(a, b OwnerPool) int { return cmp.Compare(a.UID, b.UID) })
	return need
}
