package oomlog

import (
	"regexp"
	"strconv"
	"strings"
)

// MemInfo is the Mem-Info block of an OOM report (mm/show_mem.c): the state
// of the whole machine when the OOM killer ran. Counters the block did not
// print (kernels differ, excerpts lose lines) are nil. Page counts are
// converted to bytes with Options.PageSize.
type MemInfo struct {
	// AnonLRUBytes is active_anon + inactive_anon (+ isolated_anon): private
	// anonymous memory AND shared memory (shmem lives on the anon LRU).
	AnonLRUBytes *uint64
	// FileLRUBytes is active_file + inactive_file (+ isolated_file).
	FileLRUBytes *uint64
	// ShmemBytes is shmem: tmpfs, SysV and POSIX shared memory, and
	// shared anonymous mappings, in base pages (huge pages are not here).
	ShmemBytes      *uint64
	PagetablesBytes *uint64
	// SlabBytes is slab_reclaimable + slab_unreclaimable (or "slab" on
	// 2.6.2x); SlabUnreclaimableBytes the part that cannot be freed.
	SlabBytes              *uint64
	SlabUnreclaimableBytes *uint64
	UnevictableBytes       *uint64
	MappedBytes            *uint64
	FreeBytes              *uint64
	// SwapFreeBytes and SwapTotalBytes are "Free swap" and "Total swap".
	SwapFreeBytes, SwapTotalBytes *uint64
	// RAMBytes is "N pages RAM"; ReservedBytes "N pages reserved".
	RAMBytes, ReservedBytes *uint64
	// HugePools are the "Node n hugepages_total=..." lines.
	HugePools []HugePool
}

// HugePool is one node's pool of one huge page size.
type HugePool struct {
	Node          int    `json:"node"`
	PageSizeBytes uint64 `json:"page_size_bytes"`
	Total         uint64 `json:"total"`
	Free          uint64 `json:"free"`
	Surplus       uint64 `json:"surplus"`
}

// PoolBytes is what the pool reserves: total pages times their size.
func (h HugePool) PoolBytes() uint64 { return h.Total * h.PageSizeBytes }

// PrivateAnonBytes is anonymous memory without shared memory: the anon LRU
// minus shmem. ok is false when either is unknown.
func (m *MemInfo) PrivateAnonBytes() (uint64, bool) {
	if m == nil || m.AnonLRUBytes == nil || m.ShmemBytes == nil {
		return 0, false
	}
	if *m.ShmemBytes > *m.AnonLRUBytes {
		return 0, true
	}
	return *m.AnonLRUBytes - *m.ShmemBytes, true
}

// HugePoolBytes sums the pools; ok is false when no pool line was printed.
func (m *MemInfo) HugePoolBytes() (total, free uint64, ok bool) {
	if m == nil {
		return 0, 0, false
	}
	for _, h := range m.HugePools {
		total += h.PoolBytes()
		free += h.Free * h.PageSizeBytes
	}
	return total, free, len(m.HugePools) > 0
}

var (
	counterRe  = regexp.MustCompile(`^([A-Za-z_]+):(\d+)$`)
	hugeLineRe = regexp.MustCompile(`^Node (\d+) hugepages_total=(\d+) hugepages_free=(\d+) hugepages_surp=(\d+) hugepages_size=(\d+)kB`)
	swapLineRe = regexp.MustCompile(`^(Free|Total) swap *[=:] *(\d+)kB`)
	pagesRe    = regexp.MustCompile(`^(\d+) (pages RAM|pages of RAM|pages reserved|reserved pages)$`)
	// Other lines of the block, read as part of it but not kept.
	otherMemRe = regexp.MustCompile(`^(?:\d+ (?:pages HighMem/MovableOnly|pages hwpoisoned|total pagecache pages|pages in swap cache|` +
		`pages of HIGHMEM|pages shared|pages swap cached|pages dirty|pages writeback|pages mapped|pages slab|pages pagetables|` +
		`pages cma reserved)|Swap cache(?: stats)?:|Free swap:|Node \d+ \w+ per-cpu:|\w+ per-cpu:)`)
)

// isMemInfoHeader matches "Mem-Info:" (and 2.6.2x's "Mem-info:").
func isMemInfoHeader(body string) bool {
	return strings.EqualFold(strings.TrimSpace(body), "Mem-Info:")
}

// applyMemInfo files a line of the Mem-Info block into m; it reports whether
// the line was one.
func applyMemInfo(m *MemInfo, body string, pageSize uint64) bool {
	switch {
	case isMemInfoHeader(body):
		return true
	case applyHuge(m, body), applySwap(m, body), applyPages(m, body, pageSize):
		return true
	case otherMemRe.MatchString(strings.TrimSpace(body)):
		return true
	}
	return applyCounters(m, body, pageSize)
}

// applyCounters reads the global counter lines: "active_anon:123
// inactive_anon:45 ..." (page counts, no units; joined when wrapped).
func applyCounters(m *MemInfo, body string, pageSize uint64) bool {
	fields := strings.Fields(body)
	if len(fields) < 2 {
		return false
	}
	vals := map[string]uint64{}
	for _, f := range fields {
		kv := counterRe.FindStringSubmatch(f)
		if kv == nil {
			return false
		}
		n, err := strconv.ParseUint(kv[2], 10, 64)
		if err != nil {
			return false
		}
		vals[strings.ToLower(kv[1])] = n
	}
	m.setCounters(vals, pageSize)
	return true
}

// setCounters converts the counters that were printed.
func (m *MemInfo) setCounters(v map[string]uint64, ps uint64) {
	sum := func(keys ...string) *uint64 {
		var total uint64
		for _, k := range keys[:2] {
			n, ok := v[k]
			if !ok {
				return nil
			}
			total += n
		}
		total += v[keys[2]]
		return U64(total * ps)
	}
	one := func(dst **uint64, k string) {
		if n, ok := v[k]; ok {
			*dst = U64(n * ps)
		}
	}
	setIf(&m.AnonLRUBytes, sum("active_anon", "inactive_anon", "isolated_anon"))
	setIf(&m.FileLRUBytes, sum("active_file", "inactive_file", "isolated_file"))
	setIf(&m.SlabBytes, sum("slab_reclaimable", "slab_unreclaimable", ""))
	one(&m.SlabBytes, "slab")
	one(&m.SlabUnreclaimableBytes, "slab_unreclaimable")
	one(&m.ShmemBytes, "shmem")
	one(&m.PagetablesBytes, "pagetables")
	one(&m.UnevictableBytes, "unevictable")
	one(&m.MappedBytes, "mapped")
	one(&m.FreeBytes, "free")
}

func setIf(dst **uint64, v *uint64) {
	if v != nil {
		*dst = v
	}
}

func applyHuge(m *MemInfo, body string) bool {
	h := hugeLineRe.FindStringSubmatch(body)
	if h == nil {
		return false
	}
	n := make([]uint64, 5)
	for i := range n {
		n[i], _ = strconv.ParseUint(h[i+1], 10, 64)
	}
	m.HugePools = append(m.HugePools, HugePool{Node: int(n[0]), Total: n[1], Free: n[2], Surplus: n[3], PageSizeBytes: kib(n[4])})
	return true
}

func applySwap(m *MemInfo, body string) bool {
	s := swapLineRe.FindStringSubmatch(body)
	if s == nil {
		return false
	}
	v := U64(kibString(s[2]))
	if s[1] == "Free" {
		m.SwapFreeBytes = v
	} else {
		m.SwapTotalBytes = v
	}
	return true
}

func applyPages(m *MemInfo, body string, pageSize uint64) bool {
	p := pagesRe.FindStringSubmatch(strings.TrimSpace(body))
	if p == nil {
		return false
	}
	n, _ := strconv.ParseUint(p[1], 10, 64)
	if strings.Contains(p[2], "RAM") {
		m.RAMBytes = U64(n * pageSize)
	} else {
		m.ReservedBytes = U64(n * pageSize)
	}
	return true
}
