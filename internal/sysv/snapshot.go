package sysv

import (
	"github.com/dbmem/dbmem/internal/units"

	"fmt"
	"os"
	"slices"

	"github.com/dbmem/dbmem/internal/linux"
)

// HugeState tells whether a segment is in huge pages (SHM_HUGETLB).
type HugeState string

// The kernel does not say in /proc/sysvipc/shm whether a segment is
// SHM_HUGETLB; an attaching process's smaps does. A segment nobody
// attaches stays HugeUnknown.
const (
	HugeYes     HugeState = "yes"
	HugeNo      HugeState = "no"
	HugeUnknown HugeState = "unknown"
)

// SegmentInfo is a segment with the processes that attach it and its page size.
type SegmentInfo struct {
	Segment
	Attachments   []Attachment // by PID
	Huge          HugeState
	PageSizeBytes uint64 // KernelPageSize of its mapping; 0 when Huge is unknown
	PageSizeFrom  int    // PID whose mappings or smaps told the page size; 0 if none
	// HugeByRSS: no readable process attaches it, but its rss exceeds its size,
	// which only the kernel's over-count of SHM_HUGETLB segments produces
	// (see ResidentBytes): Huge is then HugeYes in default-size pages.
	HugeByRSS bool
}

// ResidentBytes is the memory the segment holds (the rss column). Kernels
// whose hugetlb page cache counts base pages (measured on 6.18) multiply
// the rss of a SHM_HUGETLB segment by the base pages per huge page (512 for
// 2 MiB on x86-64): an rss beyond the segment's size in huge pages is
// divided back. ok is false where the kernel has no rss column.
func (s SegmentInfo) ResidentBytes(basePageBytes uint64) (uint64, bool) {
	if s.RSSBytes == nil {
		return 0, false
	}
	rss, page := *s.RSSBytes, s.PageSizeBytes
	if s.Huge == HugeYes && page > basePageBytes && basePageBytes > 0 && rss > units.CeilDiv(s.SizeBytes, page)*page {
		rss /= page / basePageBytes
	}
	return rss, true
}

// PIDs returns the attaching processes.
func (s SegmentInfo) PIDs() []int {
	out := make([]int, len(s.Attachments))
	for i, a := range s.Attachments {
		out[i] = a.PID
	}
	return out
}

// Process is what decides an attaching process's right to huge pages.
type Process struct {
	PID     int
	Creds   linux.Creds
	Memlock *linux.Limit // nil when /proc/PID/limits could not be read
}

// Snapshot is the SysV shared memory of one IPC namespace.
type Snapshot struct {
	Kernel    Kernel
	Segments  []SegmentInfo   // by shmid
	Processes map[int]Process // attaching processes
	Degraded  Degradation
}

// Read reads the segments, the processes that attach them, their page
// sizes, the attaching processes' credentials and memlock limits, and the
// kernel limits. Unreadable processes are listed in Degraded, not errors.
func Read(fsys linux.FS) (Snapshot, error) {
	var s Snapshot
	var err error
	if s.Kernel, err = ReadKernel(fsys); err != nil {
		return s, err
	}
	segs, err := ReadSegments(fsys)
	if err != nil {
		return s, err
	}
	att, deg, err := scanAttachments(fsys)
	if err != nil {
		return s, fmt.Errorf("list processes under %s: %w", fsys.ProcPath(), err)
	}
	s.Degraded = deg
	s.Segments = make([]SegmentInfo, len(segs))
	for i, seg := range segs {
		s.Segments[i] = SegmentInfo{Segment: seg, Attachments: att[seg.ID], Huge: HugeUnknown}
	}
	slices.SortFunc(s.Segments, func(a, b SegmentInfo) int { return a.ID - b.ID })
	s.resolvePageSizes(fsys)
	s.hostBasePage()
	s.inferHugeByRSS()
	s.readProcesses(fsys)
	return s, nil
}

// resolvePageSizes takes each segment's page size from its mappings where
// the kernel told it (a live host with PROCMAP_QUERY), else reads smaps
// of as few attaching processes as it can: one process's smaps answers
// for every segment it attaches.
func (s *Snapshot) resolvePageSizes(fsys linux.FS) {
	base := uint64(os.Getpagesize()) // the query runs on this host only
	for i := range s.Segments {
		seg := &s.Segments[i]
		for _, a := range seg.Attachments {
			if a.PageSizeBytes != 0 {
				seg.Huge, seg.PageSizeBytes, seg.PageSizeFrom = HugeNo, a.PageSizeBytes, a.PID
				if a.PageSizeBytes > base {
					seg.Huge = HugeYes // only hugetlb mappings have a larger kernel page
				}
				break
			}
		}
		for _, a := range seg.Attachments {
			if seg.Huge != HugeUnknown {
				break
			}
			info, err := readSmapsSysV(fsys, a.PID)
			if err != nil {
				s.noteProblem(a.PID, "smaps", err)
				continue
			}
			s.applyPageInfo(a.PID, info)
		}
	}
}

// applyPageInfo sets the page size of every unresolved segment that pid's
// smaps shows.
func (s *Snapshot) applyPageInfo(pid int, info map[int]pageInfo) {
	for j := range s.Segments {
		seg := &s.Segments[j]
		p, ok := info[seg.ID]
		if !ok || seg.Huge != HugeUnknown || p.KernelPageSizeBytes == 0 {
			continue
		}
		seg.Huge, seg.PageSizeBytes, seg.PageSizeFrom = HugeNo, p.KernelPageSizeBytes, pid
		if p.Hugetlb {
			seg.Huge = HugeYes
		}
	}
}

// hostBasePage takes the host's base page size from a segment mapped in
// base pages (its KernelPageSize): a capture of an arm64 host with 64 KiB
// pages read on x86-64 must count kernel.shmall and rss in 64 KiB pages,
// not in the reader's os.Getpagesize().
func (s *Snapshot) hostBasePage() {
	for _, seg := range s.Segments {
		if seg.Huge == HugeNo && seg.PageSizeBytes > 0 {
			s.Kernel.PageSizeBytes = seg.PageSizeBytes
			return
		}
	}
}

// inferHugeByRSS marks as huge the unattached segments whose rss exceeds
// their size rounded up to huge pages: only the kernel's SHM_HUGETLB
// over-count produces that.
func (s *Snapshot) inferHugeByRSS() {
	hp := s.Kernel.HugePageSize()
	for i := range s.Segments {
		seg := &s.Segments[i]
		if seg.Huge != HugeUnknown || seg.RSSBytes == nil || hp == 0 || *seg.RSSBytes <= units.CeilDiv(seg.SizeBytes, hp)*hp {
			continue
		}
		seg.Huge, seg.PageSizeBytes, seg.HugeByRSS = HugeYes, hp, true
	}
}

// readProcesses reads credentials and memlock of every attaching process.
func (s *Snapshot) readProcesses(fsys linux.FS) {
	s.Processes = map[int]Process{}
	for _, seg := range s.Segments {
		for _, a := range seg.Attachments {
			if _, done := s.Processes[a.PID]; done {
				continue
			}
			c, err := linux.ReadCreds(fsys, a.PID)
			if err != nil {
				s.noteProblem(a.PID, "status", err)
				continue
			}
			p := Process{PID: a.PID, Creds: c}
			if l, err := linux.ReadLimits(fsys, a.PID); err != nil {
				s.noteProblem(a.PID, "limits", err)
			} else if m, ok := l.Memlock(); ok {
				p.Memlock = &m
			}
			s.Processes[a.PID] = p
		}
	}
}

// noteProblem records a failed read unless the process simply exited.
func (s *Snapshot) noteProblem(pid int, file string, err error) {
	if linux.IsGone(err) {
		return
	}
	s.Degraded.Problems = append(s.Degraded.Problems, ProcProblem{PID: pid, File: file, Err: err.Error()})
}
