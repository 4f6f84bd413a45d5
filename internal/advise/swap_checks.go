package advise

import (
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/units"
)

func checkSwap(h host) []finding.Finding {
	m := h.Meminfo
	if !h.Dedicated || !h.need("swap.large", "host", known(inSwapTotal, m.SwapTotalBytes), known(inMemTotal, m.MemTotalBytes)) {
		return nil
	}
	swap := *m.SwapTotalBytes
	if swap <= SwapLargeBytes || share(swap, h.RAM) <= SwapLargeShare {
		return nil
	}
	used := Unknown
	if u, ok := m.SwapUsedBytes(); ok {
		used = units.Bytes(u)
	}
	return []finding.Finding{{
		ID: "swap.large", Severity: finding.Notice, Subject: "host",
		Title: fmt.Sprintf("%s of swap (%s of RAM)", units.Bytes(swap), units.Percent(swap, h.RAM)),
		Evidence: []finding.Evidence{
			ev("SwapTotal", units.Bytes(swap), srcMeminfo),
			ev("SwapUsed", used, srcMeminfo),
			ev("MemTotal", units.Bytes(h.RAM), srcMeminfo),
		},
		Why: "A runaway sort that spills into swap first evicts the page cache every other query needs, " +
			"then crawls for minutes before the OOM kill comes anyway; a temporary file would have been faster.",
		Fix: "Keep 1-2 GiB of swap for idle daemons, vm.swappiness=10, and " + h.boundMemory() + ".",
	}}
}

func checkSwappiness(h host) []finding.Finding {
	sw, ok := h.Sysctls.Int("vm.swappiness")
	swap := h.Meminfo.SwapTotalBytes
	if !h.Dedicated || !h.need("swap.swappiness", "host", have("vm.swappiness (/proc/sys)", ok), known(inSwapTotal, swap)) ||
		sw <= SwappinessMax || *swap == 0 {
		return nil
	}
	return []finding.Finding{{
		ID: "swap.swappiness", Severity: finding.Notice, Subject: "host",
		Title: fmt.Sprintf("vm.swappiness=%d with %s of swap", sw, units.Bytes(*swap)),
		Evidence: []finding.Evidence{
			ev("vm.swappiness", strconv.FormatInt(sw, 10), srcSysctl),
			ev("SwapTotal", units.Bytes(*swap), srcMeminfo),
		},
		Why: "A high swappiness makes the kernel swap out database memory to keep page cache, " +
			"which turns later accesses into disk reads.",
		Fix:      "Set vm.swappiness=10 (or 1).",
		Settings: []finding.Setting{sysctlSetting("vm.swappiness", "10", strconv.FormatInt(sw, 10), "10 (seed 001: 10, or 1)", "swap only as a last resort")},
	}}
}

// checkSwapInUse flags GiBs swapped out while memory is available: the
// kernel paged database memory out to keep page cache (a high
// vm.swappiness), and every access to it is now a disk read. Swap used
// under real memory pressure (MemAvailable low) is another story: the
// findings about what takes the memory tell it.
func checkSwapInUse(h host) []finding.Finding {
	const id = "swap.in_use"
	m := h.Meminfo
	avail, estimated, okAvail := m.Available()
	used, okUsed := m.SwapUsedBytes()
	if !h.Dedicated || !h.need(id, "host", have(inSwapTotal+", SwapFree (/proc/meminfo)", okUsed),
		have("MemAvailable (/proc/meminfo)", okAvail), known(inMemTotal, m.MemTotalBytes)) {
		return nil
	}
	if used < SwapInUseBytes || share(avail, h.RAM) < SwapInUseAvailable {
		return nil
	}
	availName := "MemAvailable"
	if estimated {
		availName += " (estimated: " + m.AvailableEstimateFormula() + ")"
	}
	sw := h.Sysctls["vm.swappiness"]
	swShown := sw
	if sw == "" {
		swShown = Unknown
	}
	f := finding.Finding{
		ID: id, Severity: finding.Warning, Subject: "host",
		Title: fmt.Sprintf("%s swapped out while %s (%s of RAM) is available", units.Bytes(used), units.Bytes(avail), units.Percent(avail, h.RAM)),
		Evidence: []finding.Evidence{
			ev("swap used", fmt.Sprintf("%s of %s (SwapTotal - SwapFree)", units.Bytes(used), bytesOf(m.SwapTotalBytes)), srcMeminfo),
			ev(availName, units.Bytes(avail), srcMeminfo),
			ev("vm.swappiness", swShown, srcSysctl),
		},
		Why: "The kernel swapped out process memory to keep page cache although memory is available: the backends' and " +
			"servers' pages come back from disk one fault at a time, and queries stall on it.",
		Fix: "Set vm.swappiness=10 (or 1) so the kernel drops cache before it swaps; the swapped pages return as they are touched " +
			"(or at once with swapoff -a && swapon -a when MemAvailable holds them).",
	}
	f.Stake(used, "swap used: SwapTotal - SwapFree")
	if n, err := strconv.Atoi(sw); err == nil && n > SwappinessMax {
		f.Settings = []finding.Setting{sysctlSetting("vm.swappiness", strconv.Itoa(DefaultSwappiness), sw, "10 (seed 001: 10, or 1)", "swap only as a last resort")}
	}
	return []finding.Finding{f}
}
