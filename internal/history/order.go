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
	{"active_sessions", "Active sessions"},
	{"processes", "Processes"},
	{"threads", "Threads"},
	{"private_estimate_bytes", "Private (RssAnon+VmPTE+VmSwap)"},
	{"pss_private_bytes", "Private (Pss_Anon+VmPTE+VmSwap)"},
	{"rss_anon_bytes", "Private (RssAnon)"},
	{"pss_anon_bytes", "Private (Pss_Anon)"},
	{"vm_pte_bytes", "Page tables (VmPTE sum)"},
	{"cgroup_limit_bytes", "Cgroup memory limit"},
	{"cgroup_usage_bytes", "Cgroup memory usage"},
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
	if _, ok := InstanceOf(s.Labels); ok {
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

// InstanceOf tells whether series labels name an instance, and its
// engine: "postgresql" for "port=...", else the "engine=" label.
func InstanceOf(labels string) (engine string, ok bool) {
	if strings.HasPrefix(labels, "port=") {
		return "postgresql", true
	}
	rest, ok := strings.CutPrefix(labels, "engine=")
	engine, port, _ := strings.Cut(rest, " ")
	return engine, ok && strings.HasPrefix(port, "port=")
}

// instancePart is the labels without the engine: "port=... data_dir=...".
func instancePart(labels string) string {
	if strings.HasPrefix(labels, "engine=") {
		_, rest, _ := strings.Cut(labels, " ")
		return rest
	}
	return labels
}
