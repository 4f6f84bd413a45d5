package report

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/texttable"
	"github.com/dbmem/dbmem/internal/units"
)

// writeHost renders the HOST section. A number the kernel did not give is
// "unknown" (NOT SEEN says why), never 0.
func writeHost(b *strings.Builder, h linux.Host, st style) {
	m := h.Meminfo
	fmt.Fprintf(b, "%s\n", st.head("HOST"))
	fmt.Fprintf(b, "  Memory       %s total, %s, page cache %s, shmem %s, anon %s\n",
		units.OptBytes(m.MemTotalBytes), availableText(m),
		units.OptBytes(pageCache(m)), units.OptBytes(m.ShmemBytes), units.OptBytes(m.AnonPagesBytes))
	pt := units.OptBytes(m.PageTablesBytes) + ofText(m.PageTablesBytes, m.MemTotalBytes, " of RAM")
	if m.SecPageTablesBytes != nil {
		pt += fmt.Sprintf(", secondary %s", units.Bytes(*m.SecPageTablesBytes))
	}
	fmt.Fprintf(b, "  Page tables  %s\n", pt)
	fmt.Fprintf(b, "  Commit       %s committed of %s CommitLimit%s; %s\n",
		units.OptBytes(m.CommittedASBytes), units.OptBytes(m.CommitLimitBytes), ofText(m.CommittedASBytes, m.CommitLimitBytes, ""),
		overcommitMeaning(h.Sysctls["vm.overcommit_memory"]))
	fmt.Fprintf(b, "  Swap         %s\n", swapLine(m))
	fmt.Fprintf(b, "  THP          enabled=%s defrag=%s shmem_enabled=%s; AnonHugePages %s, ShmemHugePages %s\n",
		units.Or(h.THP.Enabled, units.Unknown), units.Or(h.THP.Defrag, units.Unknown), units.Or(h.THP.ShmemEnabled, units.Unknown),
		units.OptBytes(m.AnonHugePagesBytes), units.OptBytes(m.ShmemHugePagesBytes))
	writePools(b, h)
	writeSysctls(b, h.Sysctls, st)
}

// availableText is "X available (12%)" from MemAvailable, its estimate
// said as one, or unknown.
func availableText(m linux.Meminfo) string {
	v, est, ok := m.Available()
	switch {
	case !ok:
		return units.Unknown + " available"
	case est:
		s := units.Bytes(v) + " available (estimate: " + m.AvailableEstimateFormula() + ")"
		if pct := ofText(&v, m.MemTotalBytes, ""); pct != "" {
			s += ", " + strings.Trim(pct, " ()") + " of RAM"
		}
		return s
	}
	return units.Bytes(v) + " available" + ofText(&v, m.MemTotalBytes, "")
}

func pageCache(m linux.Meminfo) *uint64 {
	if v, ok := m.PageCacheBytes(); ok {
		return &v
	}
	return nil
}

// ofText is " (12% of RAM)", or "" when either number is unknown.
func ofText(part, whole *uint64, of string) string {
	if part == nil || whole == nil || *whole == 0 {
		return ""
	}
	return " (" + units.Percent(*part, *whole) + of + ")"
}

func overcommitMeaning(mode string) string {
	switch mode {
	case "0":
		return "vm.overcommit_memory=0 (heuristic: the limit is not enforced)"
	case "1":
		return "vm.overcommit_memory=1 (always: the limit is not enforced)"
	case "2":
		return "vm.overcommit_memory=2 (strict: allocations beyond the limit fail)"
	}
	return "vm.overcommit_memory unknown"
}

func swapLine(m linux.Meminfo) string {
	switch {
	case m.SwapTotalBytes == nil:
		return units.Unknown
	case *m.SwapTotalBytes == 0:
		return "none"
	}
	used := units.Unknown
	if u, ok := m.SwapUsedBytes(); ok {
		used = units.Bytes(u) + " used"
	}
	total := *m.SwapTotalBytes
	pct := ""
	if u, ok := m.SwapUsedBytes(); ok {
		pct = " (" + units.Percent(u, total) + ")"
	}
	return fmt.Sprintf("%s of %s%s, swap cache %s", used, units.Bytes(total), pct, units.OptBytes(m.SwapCachedBytes))
}

func writePools(b *strings.Builder, h linux.Host) {
	if len(h.HugePools) == 0 {
		fmt.Fprintf(b, "  Huge pages   %s\n", noPoolText(h.Meminfo))
		return
	}
	t := texttable.New("POOL", ">PAGE", ">TOTAL", ">FREE", ">RSVD", ">SURP", ">OVERCOMMIT", ">IN USE", ">MEMORY")
	var fromMeminfo []string
	for _, p := range h.HugePools {
		if p.Source == linux.PoolFromMeminfo {
			fromMeminfo = append(fromMeminfo, units.Bytes(p.PageSizeBytes))
		}
		where, rsvd, over, inUse := "host", optCount(p.Reserved), optCount(p.Overcommit), ""
		if n, ok := p.InUse(); ok {
			inUse = fmt.Sprint(n)
		}
		if p.Node >= 0 {
			where, rsvd, over = fmt.Sprintf("node%d", p.Node), "", ""
		}
		t.Add(where, units.Bytes(p.PageSizeBytes), fmt.Sprint(p.Total), fmt.Sprint(p.Free), rsvd,
			fmt.Sprint(p.Surplus), over, inUse, units.Bytes(p.Bytes()))
	}
	out := t.Render("               ")
	b.WriteString("  Huge pages" + strings.TrimPrefix(out, "            "))
	b.WriteString(defaultPoolNote(h))
	if len(fromMeminfo) > 0 {
		fmt.Fprintf(b, "               the %s pool is from /proc/meminfo (sysfs has none): overcommit from vm.nr_overcommit_hugepages, ? where unknown\n",
			strings.Join(fromMeminfo, ", "))
	}
}

// noPoolText says why no pool is listed: none exists, or what is unknown.
func noPoolText(m linux.Meminfo) string {
	switch {
	case m.HugePagesTotal != nil && m.HugepagesizeBytes == nil:
		return fmt.Sprintf("HugePages_Total %d of an unknown page size (no Hugepagesize line in /proc/meminfo)", *m.HugePagesTotal)
	case m.HugePagesTotal == nil && m.HugepagesizeBytes != nil:
		s := "default page " + units.Bytes(*m.HugepagesizeBytes)
		if m.HugetlbBytes != nil {
			s += ", Hugetlb " + units.Bytes(*m.HugetlbBytes) + " in all pools"
		}
		return s + "; pool counts unknown (no HugePages_Total line in /proc/meminfo)"
	case m.HugePagesTotal == nil:
		return "unknown: no pool in sysfs and no HugePages_Total line in /proc/meminfo"
	}
	return "no hugetlbfs pools on this kernel"
}

// defaultPoolNote says when the default huge page size has no pool among
// those listed (it is in meminfo, not in the sysfs read).
func defaultPoolNote(h linux.Host) string {
	size, ok := h.DefaultPageSize()
	if _, found := h.DefaultPool(); !ok || found {
		return ""
	}
	return "               default page " + units.Bytes(size) + " (Hugepagesize): no pool of that size was read\n"
}

func optCount(p *uint64) string {
	if p == nil {
		return units.UnknownCell
	}
	return fmt.Sprint(*p)
}

func writeSysctls(b *strings.Builder, s linux.Sysctls, st style) {
	var parts []string
	for _, n := range linux.SysctlNames {
		if v, ok := s[n]; ok {
			parts = append(parts, n+"="+v)
		}
	}
	writeLabeled(b, "Sysctls", wrapWords(parts, st.listWidth()))
}

// writeLabeled writes lines under a label column of 13 characters (the
// label is written on the first line only).
func writeLabeled(b *strings.Builder, label string, lines []string) {
	for i, line := range lines {
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(b, "  %-12s %s\n", label, line)
	}
}

// wrapWords joins words with spaces into lines of at most width runes.
func wrapWords(words []string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range words {
		if cur != "" && len(cur)+1+len(w) > width {
			lines = append(lines, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
