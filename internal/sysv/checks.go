package sysv

import "github.com/dbmem/dbmem/internal/units"

// pteBytes is the size of a page table entry (x86-64, arm64): each mapped
// page costs one entry in every process that touched it.
const pteBytes = 8

// DefaultCandidateBytes is the size above which a segment in base pages is
// reported as a candidate for huge pages.
const DefaultCandidateBytes = 1 << 30

// OverShmMax is a segment bigger than kernel.shmmax: it was created before
// the limit was lowered, and creating it again (a restart) fails with EINVAL.
type OverShmMax struct {
	ID          int
	Key         int32
	SizeBytes   uint64
	ShmMaxBytes uint64
}

// CheckShmMax returns the segments bigger than kernel.shmmax.
func CheckShmMax(segs []SegmentInfo, k Kernel) []OverShmMax {
	var out []OverShmMax
	for _, s := range segs {
		if s.SizeBytes > k.ShmMaxBytes {
			out = append(out, OverShmMax{ID: s.ID, Key: s.Key, SizeBytes: s.SizeBytes, ShmMaxBytes: k.ShmMaxBytes})
		}
	}
	return out
}

// ShmTotals is the use of the namespace-wide limits kernel.shmall and
// kernel.shmmni. The kernel counts each segment as ceil(size / PAGE_SIZE)
// pages against shmall, huge pages or not, until it is removed.
type ShmTotals struct {
	Segments      int
	ShmMni        uint64
	Pages         uint64 // sum of ceil(size / PageSizeBytes)
	ShmAllPages   uint64
	PageSizeBytes uint64
}

// OverShmAll reports more pages in use than kernel.shmall allows (the limit
// was lowered): every new segment fails with ENOSPC.
func (t ShmTotals) OverShmAll() bool { return t.Pages > t.ShmAllPages }

// OverShmMni reports at least kernel.shmmni segments: a new one fails with ENOSPC.
func (t ShmTotals) OverShmMni() bool { return uint64(t.Segments) >= t.ShmMni }

// CheckTotals counts the segments and pages against shmmni and shmall.
func CheckTotals(segs []SegmentInfo, k Kernel) ShmTotals {
	t := ShmTotals{Segments: len(segs), ShmMni: k.ShmMni, ShmAllPages: k.ShmAllPages, PageSizeBytes: k.PageSizeBytes}
	for _, s := range segs {
		t.Pages += units.CeilDiv(s.SizeBytes, k.PageSizeBytes)
	}
	return t
}

// HugePageCandidate is a big segment in base pages. Each process that
// touches all of it pays PageTableBytesPerProcess of page tables (8 bytes
// per page: size/512 with 4 KiB pages); in huge pages it would pay
// HugePageTableBytesPerProcess.
type HugePageCandidate struct {
	ID                       int
	Key                      int32
	SizeBytes                uint64
	PageSizeBytes            uint64
	Attachers                []int
	PageTableBytesPerProcess uint64
	PageTableBytesAll        uint64 // per process x attachers, an upper bound
	// HugePages is ceil(size / huge page size); it and the page table in
	// huge pages are nil when the huge page size is unknown.
	HugePages                    *uint64
	HugePageTableBytesPerProcess *uint64
}

// CheckHugePageCandidates returns the segments known to be in base pages
// and of at least minBytes (DefaultCandidateBytes, say).
func CheckHugePageCandidates(segs []SegmentInfo, minBytes, hugePageSizeBytes uint64) []HugePageCandidate {
	var out []HugePageCandidate
	for _, s := range segs {
		if s.Huge != HugeNo || s.SizeBytes < minBytes || s.PageSizeBytes == 0 {
			continue
		}
		per := units.CeilDiv(s.SizeBytes, s.PageSizeBytes) * pteBytes
		c := HugePageCandidate{
			ID: s.ID, Key: s.Key, SizeBytes: s.SizeBytes, PageSizeBytes: s.PageSizeBytes,
			Attachers:                s.PIDs(),
			PageTableBytesPerProcess: per,
			PageTableBytesAll:        per * uint64(len(s.Attachments)),
		}
		if hugePageSizeBytes > 0 {
			n := units.CeilDiv(s.SizeBytes, hugePageSizeBytes)
			c.HugePages, c.HugePageTableBytesPerProcess = &n, new(n*pteBytes)
		}
		out = append(out, c)
	}
	return out
}

// Orphan is a segment no process attaches (nattch 0) that still exists:
// its memory stays in use until someone removes it (ipcrm -m ID).
type Orphan struct {
	ID         int
	Key        int32
	UID        uint32
	SizeBytes  uint64
	CreatorPID int
	LastPID    int
	DetachTime int64
	// HeldBytes is resident (SegmentInfo.ResidentBytes) plus swap where the
	// kernel prints them; HeldKnown is false on kernels without those
	// columns. A SHM_HUGETLB orphan also keeps the huge pages reserved for
	// its untouched part (HugePages_Rsvd), which no rss shows.
	HeldBytes uint64
	HeldKnown bool
	Huge      HugeState // known only by the rss over-count (HugeByRSS)
}

// CheckOrphans returns the segments with no attach.
func CheckOrphans(segs []SegmentInfo, k Kernel) []Orphan {
	var out []Orphan
	for _, s := range segs {
		if s.Attached != 0 {
			continue
		}
		o := Orphan{ID: s.ID, Key: s.Key, UID: s.UID, SizeBytes: s.SizeBytes,
			CreatorPID: s.CreatorPID, LastPID: s.LastPID, DetachTime: s.DetachTime, Huge: s.Huge}
		if rss, ok := s.ResidentBytes(k.PageSizeBytes); ok && s.SwapBytes != nil {
			o.HeldBytes, o.HeldKnown = rss+*s.SwapBytes, true
		}
		out = append(out, o)
	}
	return out
}
