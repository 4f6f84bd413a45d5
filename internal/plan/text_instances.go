package plan

import (
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
)

// settingsByInstance writes the host-wide settings, then each instance's
// under a heading that names it (engine, port, data directory), so that
// two instances' huge_pages are never two identical-looking rows.
func settingsByInstance(b *strings.Builder, all []finding.Setting, width int) {
	var order []string
	by := map[string][]finding.Setting{}
	for _, s := range all {
		if _, ok := by[s.Instance]; !ok {
			order = append(order, s.Instance)
		}
		by[s.Instance] = append(by[s.Instance], s)
	}
	if host, ok := by[""]; ok || len(order) == 0 {
		b.WriteString("\nSETTINGS  host-wide\n")
		settingsTable(b, host, width)
	}
	for _, inst := range order {
		if inst == "" {
			continue
		}
		b.WriteString("\nSETTINGS  " + inst + "\n")
		settingsTable(b, by[inst], width)
	}
}
