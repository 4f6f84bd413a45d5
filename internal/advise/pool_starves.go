package advise

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
)

// MinLeftBeside is what a host needs beside its huge page pools for the
// kernel, the page cache, daemons and every process's private memory: the
// page-cache reserve of the overcommit arithmetic (20% of RAM), and at
// least 1 GiB. A plan never leaves less; a host that does and is short of
// memory (MemAvailable low, or swapping) is starved by its pool.
func MinLeftBeside(ram uint64) uint64 { return max(GiB, uint64(float64(ram)*DefaultReserve)) }

// outside is what an instance takes outside the huge page pools at worst:
// private memory, page tables, and its shared memory or buffers when they
// are not in huge pages. For a MySQL/MariaDB server, its worst case minus
// the buffers it holds in huge pages.
type outside struct {
	Subject string
	Bytes   uint64
	Formula string
}

func instanceOutside(in instance) outside {
	wc := in.Worst
	if in.HeldHugeBytes > 0 && in.Shared != nil && !in.Shared.Hugetlb {
		// Some of its areas are in huge pages, its main one is not (MariaDB's
		// smaller buffers took the pool): the worst case less what it holds.
		b := units.Sub(wc.TotalBytes, in.HeldHugeBytes)
		return outside{in.Subject, b, fmt.Sprintf("worst case %s - %s in huge pages", units.Bytes(wc.TotalBytes), units.Bytes(in.HeldHugeBytes))}
	}
	b := wc.PrivateBytes + wc.PageTablesBytes
	f := fmt.Sprintf("%s private + %s page tables", units.Bytes(wc.PrivateBytes), units.Bytes(wc.PageTablesBytes))
	if in.Shared != nil && !in.Shared.Hugetlb {
		b += wc.SharedBytes
		f += fmt.Sprintf(" + %s shared in base pages", units.Bytes(wc.SharedBytes))
	}
	return outside{in.Subject, b, f}
}

// checkPoolStarvesHost: the pools leave less than the OS and the
// instances' worst case outside them (a warning), and critical when the
// host is short of memory now (MemAvailable under 10% of RAM, or swap in
// use) with less than MinLeftBeside left. In strict overcommit the
// private part is bounded: what CommitLimit allows, less what swap holds.
func checkPoolStarvesHost(h host, s *snapshot.Snapshot) []finding.Finding {
	const id = "hugepages.pool_starves_host"
	m := h.Meminfo
	pools, poolsText := h.poolsNow()
	if pools == 0 || h.Env.InContainer || !h.need(id, "host", known(inMemTotal, m.MemTotalBytes)) {
		return nil
	}
	left := units.Sub(h.RAM, pools)
	var outs []outside
	for _, in := range h.Instances {
		if in.Untrusted == "" {
			outs = append(outs, instanceOutside(in))
		}
	}
	need, needText := outsideNeed(h, outs)
	if t := h.leftOutText(); t != "" {
		needText += "; left out, not trusted: " + t
	}
	pressure, pressureText := h.pressure()
	critical := pressure && left < MinLeftBeside(h.RAM)
	if left >= need && !critical {
		return nil
	}
	f := finding.Finding{ID: id, Severity: finding.Warning, Subject: "host",
		Title: fmt.Sprintf("huge page pools take %s of %s RAM (%s), leaving %s for the kernel, the page cache and every process",
			units.Bytes(pools), units.Bytes(h.RAM), units.Percent(pools, h.RAM), units.Bytes(left)),
		Evidence: []finding.Evidence{
			ev("huge page pools", poolsText, srcPools),
			ev("left beside the pools", fmt.Sprintf("%s = %s MemTotal - %s", units.Bytes(left), units.Bytes(h.RAM), units.Bytes(pools)), srcMeminfo),
			ev("needed beside the pools", needText, "computed"),
			ev("memory pressure now", pressureText, srcMeminfo),
		},
		Why: "Pages in a hugetlb pool are taken from RAM for good: no process but the one mapping them can use them, and they " +
			"are never reclaimed or swapped. Everything else (the kernel, the page cache, every connection's private memory) lives " +
			"in what is left, so the host swaps and the OOM killer ends a database process long before the pool is used.",
		Fix: starveFix(h, s),
	}
	if need > left {
		f.Stake(need-left, fmt.Sprintf("needed beside the pools - left: %s - %s", units.Bytes(need), units.Bytes(left)))
	}
	if critical {
		f.Severity = finding.Critical
		f.Title += "; the host is short of memory now"
	}
	return []finding.Finding{f}
}

// outsideNeed is what must fit beside the pools: a floor for the kernel
// and daemons (5% of RAM, at least 512 MiB) and the instances' worst case
// outside them, the private part bounded by CommitLimit - swap in strict
// overcommit.
func outsideNeed(h host, outs []outside) (uint64, string) {
	floor := max(512*MiB, h.RAM/20)
	var sum uint64
	parts := []string{fmt.Sprintf("%s for the kernel and daemons (5%% of RAM, at least 512 MiB)", units.Bytes(floor))}
	for _, o := range outs {
		sum += o.Bytes
		parts = append(parts, fmt.Sprintf("%s: %s (%s)", o.Subject, units.Bytes(o.Bytes), o.Formula))
	}
	if mode, _ := h.Sysctls.Int("vm.overcommit_memory"); mode == 2 && h.Meminfo.CommitLimitBytes != nil && h.Meminfo.SwapTotalBytes != nil {
		bound := units.Sub(*h.Meminfo.CommitLimitBytes, *h.Meminfo.SwapTotalBytes)
		if bound < sum {
			sum = bound
			parts = append(parts, fmt.Sprintf("bounded by strict overcommit to CommitLimit - swap = %s", units.Bytes(bound)))
		}
	}
	return floor + sum, units.Bytes(floor+sum) + " = " + strings.Join(parts, " + ")
}

// poolsNow is every host-wide pool's bytes (surplus pages included).
func (h host) poolsNow() (uint64, string) {
	var b uint64
	var parts []string
	for _, p := range h.HugePools {
		if p.Node < 0 && p.Total > 0 {
			b += p.Bytes()
			parts = append(parts, fmt.Sprintf("%d x %s = %s (%d in use)", p.Total, units.Bytes(p.PageSizeBytes), units.Bytes(p.Bytes()), hostInUse(p)))
		}
	}
	return b, strings.Join(parts, ", ")
}

// pressure: MemAvailable under 10% of RAM, or at least 256 MiB in swap.
func (h host) pressure() (bool, string) {
	m := h.Meminfo
	avail, _, okA := m.Available()
	used, okU := m.SwapUsedBytes()
	var parts []string
	p := false
	if okA {
		parts = append(parts, fmt.Sprintf("MemAvailable %s (%s of RAM)", units.Bytes(avail), units.Percent(avail, h.RAM)))
		p = share(avail, h.RAM) < PressureAvailable
	} else {
		parts = append(parts, "MemAvailable "+Unknown)
	}
	if okU {
		parts = append(parts, "swap in use "+units.Bytes(used))
		p = p || used >= PressureSwapBytes
	} else {
		parts = append(parts, "swap in use "+Unknown)
	}
	return p, strings.Join(parts, ", ")
}

// starveFix names what to shrink: the pool to what is used, or first the
// cache that fills it.
func starveFix(h host, s *snapshot.Snapshot) string {
	var caches []string
	for _, in := range h.Instances {
		if in.Shared != nil && in.Shared.Hugetlb || in.HeldHugeBytes > 0 {
			caches = append(caches, in.SharedBuffers.Name+" of "+in.Subject)
		}
	}
	fix := "Shrink vm.nr_hugepages to what the databases need (`dbmem plan`): free pages return to the kernel at once; never grow it here."
	if len(caches) > 0 {
		fix += " Where the databases' own cache fills the pool, lower it first (" + strings.Join(caches, ", ") +
			"), restart, then shrink the pool to the smaller need, or drop huge pages on a host this small."
	}
	return fix
}
