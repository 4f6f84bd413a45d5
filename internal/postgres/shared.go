package postgres

import (
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// isMainSegmentCandidate accepts the shared mappings PostgreSQL's main
// segment can have: an anonymous shared mapping (4 KiB or huge pages) or a
// SysV segment (shared_memory_type = sysv, and the small interlock segment).
func isMainSegmentCandidate(m linux.Mapping) bool {
	if !m.Shared() {
		return false
	}
	return m.Path == "/dev/zero (deleted)" || m.Path == "/anon_hugepage (deleted)" ||
		strings.HasPrefix(m.Path, "/SYSV")
}

// readShared finds the main shared memory segment: the largest candidate
// mapping of the postmaster, with the page size the kernel actually uses.
func (in *Instance) readShared(fs linux.FS) {
	entries, err := linux.ReadSmaps(fs, in.PostmasterPID, isMainSegmentCandidate)
	if err != nil {
		if !linux.IsGone(err) {
			in.gap("main shared memory segment", "postmaster's smaps: "+err.Error())
		}
		return
	}
	var best *linux.SmapsEntry
	for i := range entries {
		if best == nil || entries[i].SizeBytes() > best.SizeBytes() {
			best = &entries[i]
		}
	}
	if best == nil {
		in.gap("main shared memory segment", "no shared anonymous or SysV mapping in the postmaster's smaps")
		return
	}
	in.Shared = &SharedSegment{
		Path: best.Path, SizeBytes: best.SizeBytes(), PageSizeBytes: best.KernelPageSizeBytes,
		Hugetlb:            best.Hugetlb(),
		PostmasterRssBytes: best.RssBytes + best.SharedHugetlbBytes + best.PrivateHugetlbBytes,
	}
}
