package history

import (
	"fmt"
	"strings"
)

// seriesNames orders the series and says what each is, for people.
var seriesNames = []struct{ name, title string }{
	{"mem_available_bytes", "MemAvailable"},
	{"mem_total_bytes", "MemTotal"},
	{"page_tables_bytes", "PageTables"},
	{"committed_as_bytes", "Committed_AS"},
	{"commit_limit_bytes", "CommitLimit"},
	{"swap_used_bytes", "Swap used"},
	{"swap_in_pages_per_sec", "Swap in (pages/s)"},
	{"swap_out_pages_per_sec", "Swap out (pages/s)"},
	{"oom_kills", "OOM kills since boot"},
	{"huge_pages_in_use", "Huge pages in use"},
	{"huge_pages_total", "Huge pages in pool"},
	{"connections", "Connections"},
	{"processes", "Processes"},
	{"private_estimate_bytes", "Private (RssAnon+VmPTE+VmSwap)"},
	{"pss_private_bytes", "Private (Pss_Anon+VmPTE+VmSwap)"},
	{"vm_pte_bytes", "Page tables (VmPTE sum)"},
}

// Title names a series for people.
func Title(s Series) string {
	for _, n := range seriesNames {
		if n.name == s.Name {
			return n.title
		}
	}
	return s.Name
}

// seriesOrder sorts host series first (in seriesNames order), then each
// instance's.
func seriesOrder(s Series) string {
	group := 0
	if strings.HasPrefix(s.Labels, "port=") {
		group = 1
	}
	idx := len(seriesNames)
	for i, n := range seriesNames {
		if n.name == s.Name {
			idx = i
		}
	}
	return fmt.Sprintf("%d %s %03d %s", group, s.Labels, idx, s.Name)
}
