package enginemem

// HugeAPI is how a server maps its huge pages.
type HugeAPI string

// The two ways. MAP_HUGETLB (anonymous mmap) needs only free pages in the
// pool. SHM_HUGETLB (shmget) also needs the server's group in
// vm.hugetlb_shm_group (or CAP_IPC_LOCK), segments within kernel.shmmax and
// kernel.shmall, and MySQL's and Oracle's documentation ask for a memlock
// limit (LimitMEMLOCK= in the systemd unit) covering them.
const (
	HugeMmap HugeAPI = "mmap MAP_HUGETLB"
	HugeSysV HugeAPI = "shmget SHM_HUGETLB"
)

// HugeNeed is the pool an instance needs, in pages of PageSizeBytes.
type HugeNeed struct {
	PageSizeBytes uint64 `json:"page_size_bytes"`
	Pages         uint64 `json:"pages"`
	// SharedBytes are the bytes that move into huge pages (before rounding
	// to pages): out of 4 KiB pages and out of Committed_AS.
	SharedBytes uint64 `json:"shared_bytes"`
	// Source says how it was obtained ("postgres -C
	// shared_memory_size_in_huge_pages", "SHOW ...", "mapping size",
	// "estimate", a MySQL server's allocations); Exact is false for an
	// estimate.
	Source string `json:"source"`
	Exact  bool   `json:"exact"`
	// OwnMarginPages are pages of a margin the need already holds (MySQL:
	// its allocations at start vary); a plan adds no margin of its own.
	OwnMarginPages uint64 `json:"own_margin_pages,omitempty"`
	// API is how the engine maps the pages, and where that comes from
	// (measured, or the engine's version); "" when the engine's default.
	API     HugeAPI `json:"api,omitempty"`
	APIFrom string  `json:"api_from,omitempty"`
	// Lines are the allocations counted, each rounded up to whole pages
	// (the margin last); Smaller are allocations below one page that the
	// engine maps in a smaller page size, not from this pool.
	Lines   []Line `json:"lines,omitempty"`
	Smaller []Line `json:"smaller,omitempty"`
	// SysV is what the kernel and the limits must allow (API HugeSysV).
	SysV *SysVNeed `json:"sysv,omitempty"`
}

// Bytes is the need in bytes: Pages x PageSizeBytes.
func (n HugeNeed) Bytes() uint64 { return n.Pages * n.PageSizeBytes }

// SysVNeed is what SHM_HUGETLB segments need besides free pages.
type SysVNeed struct {
	// ShmGroup is the server's gid, for vm.hugetlb_shm_group; nil when
	// unknown.
	ShmGroup     *uint32 `json:"shm_group,omitempty"`
	MemlockBytes uint64  `json:"memlock_bytes"`
	ShmMaxBytes  uint64  `json:"shmmax_bytes"` // the largest segment
	ShmAllPages  uint64  `json:"shmall_pages"` // in base pages
}
