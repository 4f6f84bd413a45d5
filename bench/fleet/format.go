package main

import (
	"fmt"
	"strings"
)

func secs(ns int64) string {
	s := float64(ns) / 1e9
	switch {
	case s >= 10:
		return fmt.Sprintf("%.1f", s)
	case s >= 1:
		return fmt.Sprintf("%.2f", s)
	}
	return fmt.Sprintf("%.3f", s)
}

func wallCPU(t *toolRun) string {
	if t == nil {
		return "-"
	}
	return fmt.Sprintf("%s (%s)", secs(t.median(wallNS)), secs(t.median(cpuNS)))
}

func peakRSS(t *toolRun) string {
	if t == nil || t.median(rssKB) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MiB", float64(t.median(rssKB))/1024)
}

// ratio is t's median over ref's median, as a percentage.
func ratio(t, ref *toolRun, f func(runStat) int64) string {
	if t == nil || ref == nil || ref.median(f) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(t.median(f))/float64(ref.median(f)))
}

// inner is the Measure call's own wall (CPU) time in ms, divided by n.
func inner(t *toolRun, n float64) string {
	if t == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f (%.3f)", float64(t.median(innerW))/1e6/n, float64(t.median(innerC))/1e6/n)
}

func runList(t *toolRun) string {
	w := make([]string, len(t.Runs))
	for i, r := range t.Runs {
		w[i] = secs(r.WallNS)
	}
	return strings.Join(w, " ")
}

func mib(v uint64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(v)/(1<<20))
}

// methodCounts prints {"fast": 990, "smaps": 10} as "pagemap 990, smaps_rollup 10".
func methodCounts(m map[string]int) string {
	var parts []string
	for _, k := range []string{"fast", "smaps", "status"} {
		if n := m[k]; n > 0 {
			name := map[string]string{"fast": "pagemap", "smaps": "smaps_rollup", "status": "status"}[k]
			parts = append(parts, fmt.Sprintf("%s %d", name, n))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
