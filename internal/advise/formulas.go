package advise

import (
	"fmt"
	"math"

	"github.com/dbmem/dbmem/internal/units"
)

// DefaultReserve is the share of RAM kept for the page cache when sizing
// vm.overcommit_ratio (seed 001: "en général on réserve ... 20 %").
const DefaultReserve = 0.20

// OvercommitRatio returns vm.overcommit_ratio for strict overcommit (mode 2)
// so that CommitLimit + huge page pools + reserve x RAM <= RAM:
//
//	ratio = ((1 - reserve) x RAM - swap - hugepages) / (RAM - hugepages) x 100
//
// rounded down, so the reserve holds (60.6 is 60: 61 would eat into it),
// with the formula filled in. hugepages is every hugetlb pool of every
// size (the kernel subtracts them all). ok is false when swap and huge
// pages already take more than (1 - reserve) of RAM: no ratio leaves the
// reserve.
func OvercommitRatio(ram, swap, huge uint64, reserve float64) (ratio int, formula string, ok bool) {
	if ram == 0 || huge >= ram {
		return 0, "RAM unknown or not larger than the huge page pools", false
	}
	num := (1-reserve)*float64(ram) - float64(swap) - float64(huge)
	r := num / float64(ram-huge) * 100
	formula = fmt.Sprintf("((1 - %.2f) x %s - %s swap - %s huge pages) / (%s - %s) x 100 = %.1f",
		reserve, units.Bytes(ram), units.Bytes(swap), units.Bytes(huge), units.Bytes(ram), units.Bytes(huge), r)
	if r < 1 {
		// Never a setting: the kernel takes 0..100 and a ratio under 1 keeps nothing.
		return 0, fmt.Sprintf("%s, under 1: not a valid ratio, the swap and huge pages alone take more than %.0f%% of RAM", formula, (1-reserve)*100), false
	}
	// 1e-9: 0.9 x RAM / RAM x 100 is 89.99999999999999 in floating point.
	ratio = int(math.Min(100, math.Floor(r+1e-9)))
	return ratio, fmt.Sprintf("%s, rounded down to %d so the reserve holds", formula, ratio), true
}

// CommitLimit is the kernel's limit in mode 2 (mm/util.c vm_commit_limit),
// in pages as it computes it: (MemTotal - every hugetlb pool) x ratio / 100
// + SwapTotal. huge is the pools of every size (hugetlb_total_pages(),
// surplus pages included).
func CommitLimit(ram, swap, huge uint64, ratio int) uint64 {
	pages := units.Sub(ram/basePage, huge/basePage) * uint64(max(ratio, 0)) / 100
	return pages*basePage + swap
}

// RatioHolding is the smallest vm.overcommit_ratio whose CommitLimit holds
// committed bytes; ok is false when even 100 does not.
func RatioHolding(ram, swap, huge, committed uint64) (int, bool) {
	if CommitLimit(ram, swap, huge, 100) < committed {
		return 0, false
	}
	r := 0
	if room := units.Sub(ram, huge); room > 0 && committed > swap {
		r = int(float64(committed-swap) / float64(room) * 100)
	}
	for CommitLimit(ram, swap, huge, r) < committed {
		r++
	}
	return r, true
}

// PageTableBytes is the page table that processes touching shared bytes of
// memory through pages of pageSize need: 8 bytes per page per process
// (connections x shared / 512 with 4 KiB pages, / 262144 with 2 MiB pages).
func PageTableBytes(processes int, shared, pageSize uint64) uint64 {
	if pageSize == 0 {
		pageSize = basePage
	}
	return uint64(processes) * units.CeilDiv(shared, pageSize) * pteBytes
}

// HugePagesFor is the number of pages of pageSize that hold bytes, as the
// kernel rounds a hugetlb mapping: size / page rounded up.
func HugePagesFor(bytes, pageSize uint64) uint64 { return units.CeilDiv(bytes, pageSize) }

// MarginPages is the safety margin added to a pool: percent of the need,
// rounded up.
func MarginPages(need uint64, percent float64) uint64 {
	if percent <= 0 {
		return 0
	}
	return uint64(math.Ceil(float64(need) * percent / 100))
}

// SplitNodes divides pages over n NUMA nodes, the first nodes taking the
// remainder, so each node can serve the processes that run on it.
func SplitNodes(pages uint64, n int) []uint64 {
	if n < 1 {
		n = 1
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = pages / uint64(n)
		if uint64(i) < pages%uint64(n) {
			out[i]++
		}
	}
	return out
}
