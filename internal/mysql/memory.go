package mysql

import (
	"slices"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// MappingInfo is one mapping of the server process, from its smaps.
type MappingInfo struct {
	Start         uint64 `json:"start"`
	SizeBytes     uint64 `json:"size_bytes"`
	Path          string `json:"path,omitempty"` // "" anonymous, "/anon_hugepage (deleted)", "/SYSV... (deleted)"
	PageSizeBytes uint64 `json:"page_size_bytes"`
	Hugetlb       bool   `json:"hugetlb"`
	// ResidentBytes is Rss plus hugetlb pages: what the mapping holds.
	ResidentBytes uint64 `json:"resident_bytes"`
	DontDump      bool   `json:"dont_dump"` // VmFlags "dd": MADV_DONTDUMP, as InnoDB marks its buffer pool
}

// SysV reports a SysV shared memory mapping (shmget: MySQL's SHM_HUGETLB).
func (m MappingInfo) SysV() bool { return strings.HasPrefix(m.Path, "/SYSV") }

func mappingInfo(e linux.SmapsEntry) MappingInfo {
	return MappingInfo{
		Start: e.Start, SizeBytes: e.SizeBytes(), Path: e.Path, PageSizeBytes: e.KernelPageSizeBytes,
		Hugetlb:       e.Hugetlb(),
		ResidentBytes: e.RssBytes + e.SharedHugetlbBytes + e.PrivateHugetlbBytes,
		DontDump:      slices.Contains(e.VmFlags, "dd"),
	}
}

// BufferPool is where the InnoDB buffer pool is mapped: one mapping (or a
// few, for servers that allocate it in chunks), and the page size the kernel
// actually uses for it. That page size, not large_pages, says whether the
// pool is in huge pages.
type BufferPool struct {
	Mappings      []MappingInfo `json:"mappings"`
	SizeBytes     uint64        `json:"size_bytes"`
	ResidentBytes uint64        `json:"resident_bytes"`
	// PageSizeBytes is the smallest page size among the mappings; Mixed
	// says some are in another size.
	PageSizeBytes uint64 `json:"page_size_bytes"`
	Hugetlb       bool   `json:"hugetlb"` // every mapping is in huge pages
	Mixed         bool   `json:"mixed,omitempty"`
	// How tells how the mappings were recognised.
	How string `json:"how"`
}

// Memory is what the server process holds, measured from /proc.
type Memory struct {
	BufferPool *BufferPool `json:"buffer_pool,omitempty"`
	// HugeMappings are every mapping in huge pages (what large_pages got).
	HugeMappings []MappingInfo `json:"huge_mappings,omitempty"`
	// Threads is the server's thread count, 0 (omitted) when status did not
	// say: a process has at least one.
	Threads int `json:"threads,omitempty"`
	// PrivateBytes is Pss_Anon (PrivateExact) or RssAnon: anonymous memory,
	// the buffer pool included when it is in 4 KiB pages. It and the other
	// figures are nil when the process's files did not give them.
	PrivateBytes    *uint64 `json:"private_bytes,omitempty"`
	PrivateExact    bool    `json:"private_exact"`
	PageTablesBytes *uint64 `json:"page_tables_bytes,omitempty"`
	HugetlbBytes    *uint64 `json:"hugetlb_bytes,omitempty"`
	SwapBytes       *uint64 `json:"swap_bytes,omitempty"`
	// OutsidePoolBytes is PrivateBytes less the buffer pool's resident
	// 4 KiB pages: thread buffers, other caches, allocator slack.
	OutsidePoolBytes *uint64 `json:"outside_pool_bytes,omitempty"`
	// PerThreadBytes is OutsidePoolBytes / Threads: an estimate of what
	// one thread costs, upper bound (other global caches are in it too).
	PerThreadBytes *uint64 `json:"per_thread_bytes,omitempty"`
}

// isPoolCandidate accepts mappings the buffer pool can be in: anonymous
// (mmap), MAP_HUGETLB ("/anon_hugepage") or SysV (shmget), writable.
func isPoolCandidate(m linux.Mapping) bool {
	if len(m.Perms) < 2 || m.Perms[1] != 'w' || m.SizeBytes() < 2<<20 {
		return false
	}
	return m.Path == "" || m.Path == "/anon_hugepage (deleted)" || strings.HasPrefix(m.Path, "[anon:") ||
		strings.HasPrefix(m.Path, "/SYSV")
}

// FindBufferPool picks the mappings that hold a buffer pool of poolBytes:
// InnoDB marks its pool MADV_DONTDUMP ("dd"), so those are tried first;
// else the largest candidates. The largest mappings are taken until they
// cover 90% of the pool. nil when nothing plausible is found.
func FindBufferPool(entries []linux.SmapsEntry, poolBytes uint64) *BufferPool {
	if poolBytes == 0 {
		return nil
	}
	var dd, all []MappingInfo
	for _, e := range entries {
		if !isPoolCandidate(e.Mapping) {
			continue
		}
		m := mappingInfo(e)
		all = append(all, m)
		if m.DontDump {
			dd = append(dd, m)
		}
	}
	if bp := coverPool(dd, poolBytes, 0); bp != nil {
		bp.How = "MADV_DONTDUMP mapping(s) covering innodb_buffer_pool_size"
		return bp
	}
	if bp := coverPool(all, poolBytes, 4*poolBytes); bp != nil {
		bp.How = "largest anonymous mapping(s) of about innodb_buffer_pool_size"
		return bp
	}
	return nil
}

// coverPool takes the largest mappings until they hold 90% of poolBytes;
// each must be at most maxEach (0: no bound).
func coverPool(ms []MappingInfo, poolBytes, maxEach uint64) *BufferPool {
	slices.SortFunc(ms, func(a, b MappingInfo) int {
		if a.SizeBytes != b.SizeBytes {
			return int(int64(b.SizeBytes>>12) - int64(a.SizeBytes>>12))
		}
		return int(int64(a.Start>>12) - int64(b.Start>>12))
	})
	bp := &BufferPool{Hugetlb: true}
	for _, m := range ms {
		if bp.SizeBytes*10 >= poolBytes*9 {
			break
		}
		if maxEach > 0 && m.SizeBytes > maxEach {
			continue
		}
		bp.add(m)
	}
	if bp.SizeBytes*10 < poolBytes*9 {
		return nil
	}
	slices.SortFunc(bp.Mappings, func(a, b MappingInfo) int { return int(int64(a.Start>>12) - int64(b.Start>>12)) })
	return bp
}

func (bp *BufferPool) add(m MappingInfo) {
	if len(bp.Mappings) > 0 && m.PageSizeBytes != bp.PageSizeBytes {
		bp.Mixed = true
	}
	if bp.PageSizeBytes == 0 || m.PageSizeBytes < bp.PageSizeBytes {
		bp.PageSizeBytes = m.PageSizeBytes
	}
	bp.Mappings = append(bp.Mappings, m)
	bp.SizeBytes += m.SizeBytes
	bp.ResidentBytes += m.ResidentBytes
	bp.Hugetlb = bp.Hugetlb && m.Hugetlb
}

// measureMemory fills Memory from the process and its smaps.
func measureMemory(p linux.Process, entries []linux.SmapsEntry, poolBytes uint64) Memory {
	m := Memory{PageTablesBytes: p.Status.VmPTEBytes, SwapBytes: p.Status.VmSwapBytes}
	if p.Status.Threads != nil {
		m.Threads = *p.Status.Threads
	}
	if h, ok := p.HugetlbBytes(); ok {
		m.HugetlbBytes = &h
	}
	m.PrivateBytes, m.PrivateExact = p.Status.RssAnonBytes, false
	if p.Rollup != nil && p.Rollup.PssAnonBytes != nil {
		m.PrivateBytes, m.PrivateExact = p.Rollup.PssAnonBytes, true
	}
	for _, e := range entries {
		if e.Hugetlb() {
			m.HugeMappings = append(m.HugeMappings, mappingInfo(e))
		}
	}
	m.BufferPool = FindBufferPool(entries, poolBytes)
	var poolAnon uint64
	if bp := m.BufferPool; bp != nil {
		for _, x := range bp.Mappings {
			if !x.Hugetlb && !x.SysV() {
				poolAnon += x.ResidentBytes
			}
		}
	}
	if m.PrivateBytes == nil {
		return m
	}
	outside := *m.PrivateBytes - min(poolAnon, *m.PrivateBytes)
	m.OutsidePoolBytes = &outside
	if m.Threads > 0 {
		m.PerThreadBytes = new(outside / uint64(m.Threads))
	}
	return m
}
