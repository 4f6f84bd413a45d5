package linux

import "io"

// Meminfo is /proc/meminfo with sizes in bytes and huge page counts in pages.
type Meminfo struct {
	MemTotalBytes       uint64  `json:"mem_total_bytes"`
	MemFreeBytes        uint64  `json:"mem_free_bytes"`
	MemAvailableBytes   uint64  `json:"mem_available_bytes"`
	BuffersBytes        uint64  `json:"buffers_bytes"`
	CachedBytes         uint64  `json:"cached_bytes"`
	SwapCachedBytes     uint64  `json:"swap_cached_bytes"`
	AnonPagesBytes      uint64  `json:"anon_pages_bytes"`
	MappedBytes         uint64  `json:"mapped_bytes"`
	ShmemBytes          uint64  `json:"shmem_bytes"`
	SlabBytes           uint64  `json:"slab_bytes"`
	SReclaimableBytes   uint64  `json:"sreclaimable_bytes"`
	KernelStackBytes    uint64  `json:"kernel_stack_bytes"`
	PageTablesBytes     uint64  `json:"page_tables_bytes"`
	SecPageTablesBytes  *uint64 `json:"sec_page_tables_bytes,omitempty"` // 6.1+
	SwapTotalBytes      uint64  `json:"swap_total_bytes"`
	SwapFreeBytes       uint64  `json:"swap_free_bytes"`
	CommitLimitBytes    uint64  `json:"commit_limit_bytes"`
	CommittedASBytes    uint64  `json:"committed_as_bytes"`
	MlockedBytes        uint64  `json:"mlocked_bytes"`
	AnonHugePagesBytes  uint64  `json:"anon_huge_pages_bytes"`
	ShmemHugePagesBytes uint64  `json:"shmem_huge_pages_bytes"`
	HugePagesTotal      uint64  `json:"huge_pages_total"`
	HugePagesFree       uint64  `json:"huge_pages_free"`
	HugePagesRsvd       uint64  `json:"huge_pages_rsvd"`
	HugePagesSurp       uint64  `json:"huge_pages_surp"`
	HugepagesizeBytes   uint64  `json:"hugepagesize_bytes"`
	HugetlbBytes        *uint64 `json:"hugetlb_bytes,omitempty"` // 4.16+: all pool sizes
}

// PageCacheBytes is the page cache as free(1) counts it: Cached + Buffers +
// SReclaimable, minus Shmem, which is in Cached but cannot be dropped.
func (m Meminfo) PageCacheBytes() uint64 {
	c := m.CachedBytes + m.BuffersBytes
	if c < m.ShmemBytes {
		return 0
	}
	return c - m.ShmemBytes
}

// SwapUsedBytes is SwapTotal - SwapFree.
func (m Meminfo) SwapUsedBytes() uint64 {
	if m.SwapFreeBytes > m.SwapTotalBytes {
		return 0
	}
	return m.SwapTotalBytes - m.SwapFreeBytes
}

// ReadMeminfo reads /proc/meminfo under fs.
func ReadMeminfo(fs FS) (Meminfo, error) {
	return readParsed(fs, fs.ProcPath("meminfo"), parseMeminfo)
}

func parseMeminfo(r io.Reader) (Meminfo, error) {
	kv, err := parseKV(r)
	if err != nil {
		return Meminfo{}, err
	}
	if err := kv.require("meminfo", "MemTotal", "MemFree"); err != nil {
		return Meminfo{}, err
	}
	m := Meminfo{
		MemTotalBytes: kv["MemTotal"], MemFreeBytes: kv["MemFree"],
		MemAvailableBytes: kv["MemAvailable"], BuffersBytes: kv["Buffers"],
		CachedBytes: kv["Cached"], SwapCachedBytes: kv["SwapCached"],
		AnonPagesBytes: kv["AnonPages"], MappedBytes: kv["Mapped"], ShmemBytes: kv["Shmem"],
		SlabBytes: kv["Slab"], SReclaimableBytes: kv["SReclaimable"], KernelStackBytes: kv["KernelStack"],
		PageTablesBytes: kv["PageTables"], SecPageTablesBytes: kv.opt("SecPageTables"),
		SwapTotalBytes: kv["SwapTotal"], SwapFreeBytes: kv["SwapFree"],
		CommitLimitBytes: kv["CommitLimit"], CommittedASBytes: kv["Committed_AS"],
		MlockedBytes: kv["Mlocked"], AnonHugePagesBytes: kv["AnonHugePages"],
		ShmemHugePagesBytes: kv["ShmemHugePages"],
		HugePagesTotal:      kv["HugePages_Total"], HugePagesFree: kv["HugePages_Free"],
		HugePagesRsvd: kv["HugePages_Rsvd"], HugePagesSurp: kv["HugePages_Surp"],
		HugepagesizeBytes: kv["Hugepagesize"], HugetlbBytes: kv.opt("Hugetlb"),
	}
	if _, ok := kv["MemAvailable"]; !ok {
		// Kernels before 3.14: the classic estimate.
		m.MemAvailableBytes = m.MemFreeBytes + m.PageCacheBytes()
	}
	return m, nil
}
