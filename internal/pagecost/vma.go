package pagecost

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

// isCode reports whether a mapping is program or library text: private,
// executable, not writable, backed by a file. Its pages are file pages
// unless something wrote to them through a writable alias: a debugger's
// breakpoints (ptrace), or text relocations applied by the dynamic linker
// between two mprotect calls. Such anonymous pages are rare, while text is
// most of a backend's present private pages (52 MiB of 67 MiB for a
// PostgreSQL 15 backend): the fast path reads text only for a process
// whose anonymous pages found elsewhere fall short of its RssAnon.
func isCode[S string | []byte](perms S, inode uint64) bool {
	return len(perms) == 4 && perms[1] == '-' && perms[2] == 'x' && perms[3] == 'p' && inode != 0
}

// smallTextBytes: text mappings up to this size are read with the data
// around them rather than deferred. Of a PostgreSQL 15 backend's 42 text
// mappings, 31 are this small (4 MiB together): reading their pagemap
// entries (about 11 ns each) costs less than the extra system calls that
// skipping them takes (2-3 us each: each one splits a span in two).
const smallTextBytes = 512 << 10

// deferred reports whether the fast path leaves the mapping out of its
// first round: text larger than smallTextBytes.
func (m vma) deferred() bool { return m.code && m.end-m.start > smallTextBytes }

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
