package apply

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/units"
)

// poolRefusals checks a pool that grows: the pools must leave the reserve
// of RAM to everything else, and the growth must come out of memory that is
// available now (else the kernel reclaims, swaps, or starves other
// processes while it allocates). It updates next's MemAvailable.
func poolRefusals(before hostMem, next *hostMem, c Change, pol Policy) []Refusal {
	b, a := before.hugetlb(), next.hugetlb()
	if a <= b {
		next.MemAvailable += b - a
		return nil
	}
	growth, reserve := a-b, pol.reserve(before.MemTotal)
	next.MemAvailable = before.MemAvailable - min(growth, before.MemAvailable)
	size := poolPageSize(c, before.DefaultPage)
	if a+reserve > before.MemTotal {
		most := (before.MemTotal - min(before.MemTotal, reserve+b-before.Pools[size]*size)) / size
		return []Refusal{{Setting: label(c),
			Reason: fmt.Sprintf("the huge page pools would take %s of %s RAM, leaving %s for everything else; dbmem keeps at least %s (%.0f%% of RAM, at least %s) for the kernel, page tables, every process's private memory and the page cache.",
				units.Bytes(a), units.Bytes(before.MemTotal), units.Bytes(before.MemTotal-min(a, before.MemTotal)), units.Bytes(reserve), pol.ReservePercent, units.Bytes(pol.ReserveMinBytes)),
			Fix: fmt.Sprintf("at most %d pages of %s; size the pool from the database's shared memory (PostgreSQL: shared_memory_size_in_huge_pages).", most, units.Bytes(size))}}
	}
	if growth+reserve > before.MemAvailable {
		most := (before.MemAvailable - min(before.MemAvailable, reserve)) / size
		return []Refusal{{Setting: label(c),
			Reason: fmt.Sprintf("growing the pools by %s needs that much free memory now, but MemAvailable is %s and dbmem keeps %s free: the kernel would reclaim the page cache, swap, or leave other processes to the OOM killer while it allocates.",
				units.Bytes(growth), units.Bytes(before.MemAvailable), units.Bytes(reserve)),
			Fix: fmt.Sprintf("allocate the pool at boot (keep the value in /etc/sysctl.d, or hugepages= on the kernel command line) or free memory first; at most %d more pages of %s fit now.", most, units.Bytes(size))}}
	}
	return nil
}

// commitRefusal refuses a step that lowers CommitLimit, in strict mode,
// below Committed_AS plus the headroom: fork() and malloc() would fail
// machine-wide.
func commitRefusal(before, after hostMem, c Change, pol Policy) (Refusal, bool) {
	if after.Mode != 2 {
		return Refusal{}, false
	}
	limit := after.commitLimit()
	lowered := before.Mode != 2 || limit < before.commitLimit()
	headroom := pol.headroom(after.MemTotal)
	need := after.CommittedAS + headroom
	if !lowered || limit >= need {
		return Refusal{}, false
	}
	return Refusal{Setting: label(c),
		Reason: fmt.Sprintf("with vm.overcommit_memory=2, CommitLimit would be %s = %s, below Committed_AS %s (already promised) + %s headroom (%.0f%% of RAM) = %s: every fork() and malloc() on the host would start failing (bash: fork: Cannot allocate memory).",
			units.Bytes(limit), limitFormula(after), units.Bytes(after.CommittedAS), units.Bytes(headroom), pol.CommitHeadroomPercent, units.Bytes(need)),
		Fix: commitFix(after, need)}, true
}

func limitFormula(h hostMem) string {
	if h.KBytes > 0 {
		return fmt.Sprintf("vm.overcommit_kbytes %d kB + %s swap", h.KBytes, units.Bytes(h.SwapTotal))
	}
	return fmt.Sprintf("(MemTotal %s - huge pages %s) x %d/100 + %s swap", units.Bytes(h.MemTotal), units.Bytes(h.hugetlb()), h.Ratio, units.Bytes(h.SwapTotal))
}

// commitFix names the smallest ratio that keeps the headroom, or says that
// none does.
func commitFix(h hostMem, need uint64) string {
	base := h.MemTotal - min(h.hugetlb(), h.MemTotal)
	rest := need - min(need, h.SwapTotal)
	if base == 0 || rest*100/base >= 100 {
		return fmt.Sprintf("no vm.overcommit_ratio up to 100 gives %s with this pool and %s of swap: keep vm.overcommit_memory at 0, add swap, or shrink the huge page pool.", units.Bytes(need), units.Bytes(h.SwapTotal))
	}
	ratio := (rest*100 + base - 1) / base
	return fmt.Sprintf("raise vm.overcommit_ratio to at least %d (or vm.overcommit_kbytes to at least %d), add swap, or keep vm.overcommit_memory at 0.",
		ratio, (rest+1023)/1024)
}
