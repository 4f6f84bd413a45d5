package history

// chartSpecs say which series share a chart. Instance charts repeat for
// every instance.
var chartSpecs = []struct {
	title    string
	unit     string
	names    []string
	instance bool
}{
	{"Memory available", UnitBytes, []string{"mem_available_bytes", "mem_total_bytes"}, false},
	{"Commit (Committed_AS vs CommitLimit)", UnitBytes, []string{"committed_as_bytes", "commit_limit_bytes"}, false},
	{"Page tables (host PageTables)", UnitBytes, []string{"page_tables_bytes"}, false},
	{"Swap activity", UnitPagesPerSec, []string{"swap_in_pages_per_sec", "swap_out_pages_per_sec"}, false},
	{"Swap used", UnitBytes, []string{"swap_used_bytes"}, false},
	{"Huge pages", UnitCount, []string{"huge_pages_in_use", "huge_pages_total"}, false},
	{"Private memory", UnitBytes, []string{"private_estimate_bytes", "pss_private_bytes", "rss_anon_bytes", "pss_anon_bytes", "vm_pte_bytes"}, true},
	{"Connections and processes", UnitCount, []string{"connections", "active_sessions", "processes", "threads"}, true},
}

// Charts groups the recorded series into charts, host first, then each
// instance's. Charts without data are left out.
func Charts(h *History) []Chart {
	var out []Chart
	for _, spec := range chartSpecs {
		if spec.instance {
			continue
		}
		if c := collect(h, spec.title, spec.unit, spec.names, ""); len(c.Series) > 0 {
			out = append(out, c)
		}
	}
	for _, inst := range instanceLabels(h) {
		for _, spec := range chartSpecs {
			if !spec.instance {
				continue
			}
			if c := collect(h, spec.title+": "+inst, spec.unit, spec.names, inst); len(c.Series) > 0 {
				out = append(out, c)
			}
		}
	}
	return out
}

// collect gathers the series with the given names; for host charts every
// label set (huge page sizes), for instance charts the instance's.
func collect(h *History, title, unit string, names []string, inst string) Chart {
	c := Chart{Title: title, Unit: unit, Instance: inst}
	for _, n := range names {
		for _, s := range h.Series {
			_, isInst := InstanceOf(s.Labels)
			if s.Name != n || isInst != (inst != "") || (inst != "" && s.Labels != inst) {
				continue
			}
			name := Title(s)
			if !isInst && s.Labels != "" {
				name += " (" + LabelText(s.Labels) + ")"
			}
			c.Series = append(c.Series, s)
			c.Names = append(c.Names, name)
		}
	}
	return c
}

func instanceLabels(h *History) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range h.Series {
		if _, ok := InstanceOf(s.Labels); ok && !seen[s.Labels] {
			seen[s.Labels] = true
			out = append(out, s.Labels)
		}
	}
	return out
}
