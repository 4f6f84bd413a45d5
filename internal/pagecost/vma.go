package pagecost

import "github.com/dbmem/dbmem/internal/linux"

// vmaAction says what the fast path does with one mapping.
type vmaAction int

const (
	// vmaRead: read its pagemap; exclusive anonymous pages count in full.
	vmaRead vmaAction = iota
	// vmaReadCheck: read its pagemap and look up every anonymous-looking
	// page, because the mapping may be hugetlbfs (a file on a pseudo
	// filesystem), whose pages smaps_rollup leaves out of Pss_Anon.
	vmaReadCheck
	// vmaSkipShared: MAP_SHARED ('s'). Its pages are page cache or shmem,
	// never anonymous, so they are not in Pss_Anon: the database's shared
	// memory (/dev/zero, /anon_hugepage, /SYSV..., /memfd:..., /dev/shm/...)
	// is never read. This is where the time is saved.
	vmaSkipShared
	// vmaSkipHugetlb: private MAP_HUGETLB memory (/anon_hugepage), counted
	// by smaps_rollup in Private_Hugetlb, not Pss_Anon.
	vmaSkipHugetlb
	// vmaSkipSpecial: [vsyscall] (outside the task's address space, no
	// pagemap entries) and [vvar*] (PFN maps, no anonymous pages).
	vmaSkipSpecial
)

// taskSizeLimit is the end of the x86-64 user address space with 5-level
// paging; mappings above it ([vsyscall]) have no pagemap entries.
const taskSizeLimit = uint64(1) << 56

// classifyVMA decides how the fast path treats a mapping.
func classifyVMA(m linux.Mapping) vmaAction {
	return classify(m.Shared(), m.Dev, m.Inode, m.Path, m.End)
}

// classify is classifyVMA on the fields of a maps line, as strings or bytes.
func classify[S string | []byte](shared bool, dev S, inode uint64, path S, end uint64) vmaAction {
	switch {
	case shared:
		return vmaSkipShared
	case hasPrefix(path, "/anon_hugepage"):
		return vmaSkipHugetlb
	case end > taskSizeLimit || string(path) == "[vsyscall]" || hasPrefix(path, "[vvar"):
		return vmaSkipSpecial
	case inode != 0 && hasPrefix(dev, "00:"):
		// A file on a filesystem without a block device: tmpfs, overlay,
		// or hugetlbfs. Only kpageflags can tell hugetlb pages apart.
		return vmaReadCheck
	}
	return vmaRead
}

func hasPrefix[S string | []byte](s S, prefix string) bool {
	return len(s) >= len(prefix) && string(s[:len(prefix)]) == prefix
}
