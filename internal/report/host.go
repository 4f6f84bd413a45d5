package report

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/texttable"
	"github.com/dbmem/dbmem/internal/units"
)

// writeHost renders the HOST section.
func writeHost(b *strings.Builder, h linux.Host, st style) {
	m := h.Meminfo
	fmt.Fprintf(b, "%s\n", st.head("HOST"))
	fmt.Fprintf(b, "  Memory       %s total, %s available (%s), page cache %s, shmem %s, anon %s\n",
		units.Bytes(m.MemTotalBytes), units.Bytes(m.MemAvailableBytes), units.Percent(m.MemAvailableBytes, m.MemTotalBytes),
		units.Bytes(m.PageCacheBytes()), units.Bytes(m.ShmemBytes), units.Bytes(m.AnonPagesBytes))
	pt := fmt.Sprintf("%s (%s of RAM)", units.Bytes(m.PageTablesBytes), units.Percent(m.PageTablesBytes, m.MemTotalBytes))
	if m.SecPageTablesBytes != nil {
		pt += fmt.Sprintf(", secondary %s", units.Bytes(*m.SecPageTablesBytes))
	}
	fmt.Fprintf(b, "  Page tables  %s\n", pt)
	fmt.Fprintf(b, "  Commit       %s committed of %s CommitLimit (%s); %s\n",
		units.Bytes(m.CommittedASBytes), units.Bytes(m.CommitLimitBytes), units.Percent(m.CommittedASBytes, m.CommitLimitBytes),
		overcommitMeaning(h.Sysctls["vm.overcommit_memory"]))
	fmt.Fprintf(b, "  Swap         %s\n", swapLine(m))
	fmt.Fprintf(b, "  THP          enabled=%s defrag=%s shmem_enabled=%s; AnonHugePages %s, ShmemHugePages %s\n",
		orDash(h.THP.Enabled), orDash(h.THP.Defrag), orDash(h.THP.ShmemEnabled),
		units.Bytes(m.AnonHugePagesBytes), units.Bytes(m.ShmemHugePagesBytes))
	writePools(b, h)
	writeSysctls(b, h.Sysctls, st)
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
	if m.SwapTotalBytes == 0 {
		return "none"
	}
	return fmt.Sprintf("%s used of %s (%s), swap cache %s", units.Bytes(m.SwapUsedBytes()), units.Bytes(m.SwapTotalBytes),
		units.Percent(m.SwapUsedBytes(), m.SwapTotalBytes), units.Bytes(m.SwapCachedBytes))
}

func writePools(b *strings.Builder, h linux.Host) {
	if len(h.HugePools) == 0 {
		fmt.Fprintf(b, "  Huge pages   no hugetlbfs pools on this kernel\n")
		return
	}
	t := texttable.New("POOL", ">PAGE", ">TOTAL", ">FREE", ">RSVD", ">SURP", ">OVERCOMMIT", ">IN USE", ">MEMORY")
	for _, p := range h.HugePools {
		where, rsvd, over, inUse := "host", fmt.Sprint(p.Reserved), fmt.Sprint(p.Overcommit), fmt.Sprint(p.InUse())
		if p.Node >= 0 {
			where, rsvd, over, inUse = fmt.Sprintf("node%d", p.Node), "", "", ""
		}
		t.Add(where, units.Bytes(p.PageSizeBytes), fmt.Sprint(p.Total), fmt.Sprint(p.Free), rsvd,
			fmt.Sprint(p.Surplus), over, inUse, units.Bytes(p.Bytes()))
	}
	out := t.Render("               ")
	b.WriteString("  Huge pages" + strings.TrimPrefix(out, "            "))
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
