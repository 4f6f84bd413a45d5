package report

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// procGap matches a gap about one process's file: "/proc/1234/status lines
// RssAnon" (or "dump.tar.gz:/proc/1234/...").
var procGap = regexp.MustCompile(`^(.*/proc/)(\d+)(/.*)$`)

// mergeProcessGaps says once what many processes lack for the same reason
// (an old kernel's status has no RssAnon in any process): "/proc/PID/status
// lines RssAnon (12 processes: 101 102 ...)". Other gaps are kept as they are.
func mergeProcessGaps(gaps []linux.Gap) []linux.Gap {
	type group struct {
		at   int
		what string
		pids []string
	}
	groups := map[string]*group{}
	var out []linux.Gap
	for _, g := range gaps {
		m := procGap.FindStringSubmatch(g.What)
		if m == nil {
			out = append(out, g)
			continue
		}
		key := m[1] + "PID" + m[3] + "\x00" + g.Why
		if gr, ok := groups[key]; ok {
			gr.pids = append(gr.pids, m[2])
			continue
		}
		groups[key] = &group{at: len(out), what: m[1] + "PID" + m[3], pids: []string{m[2]}}
		out = append(out, g)
	}
	for _, gr := range groups {
		if len(gr.pids) > 1 {
			out[gr.at].What = fmt.Sprintf("%s (%d processes: %s)", gr.what, len(gr.pids), pidsText(gr.pids, 8))
		}
	}
	return mergeSameCause(out)
}

// mergeSameCause says once what three or more things lack for the same
// reason (every sysctl of a copy without /proc/sys): "vm.swappiness,
// vm.overcommit_memory, ...: not present".
func mergeSameCause(gaps []linux.Gap) []linux.Gap {
	count := map[string]int{}
	for _, g := range gaps {
		count[g.Why]++
	}
	var out []linux.Gap
	at := map[string]int{}
	for _, g := range gaps {
		if count[g.Why] < 3 {
			out = append(out, g)
			continue
		}
		if i, ok := at[g.Why]; ok {
			out[i].What += ", " + g.What
			continue
		}
		at[g.Why] = len(out)
		out = append(out, g)
	}
	return out
}

func pidsText(pids []string, max int) string {
	if len(pids) <= max {
		return strings.Join(pids, " ")
	}
	return strings.Join(pids[:max], " ") + fmt.Sprintf(" +%d", len(pids)-max)
}
