package oomlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// excerpt keeps the report lines of a fixture (not the stack or cgroup
// stats) and at most 2 KiB: minimizing large seeds stalls the fuzzer.
func excerpt(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "oom") || strings.Contains(l, "process") || strings.Contains(l, "]  ") ||
			strings.Contains(l, "memory") || strings.Contains(l, "pid") {
			if b.Len()+len(l) > 2048 {
				break
			}
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// FuzzParse feeds arbitrary text, seeded with every fixture, and checks that
// Parse neither panics nor returns events without lines.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(excerpt(string(b)))
	}
	f.Add("[ pid ] uid tgid\n[ 1] 2\nKilled process 1 (\n")
	f.Fuzz(func(t *testing.T, s string) {
		events, err := Options{PageSize: 4096, Year: 2026}.Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, e := range events {
			if len(e.Lines) == 0 {
				t.Fatalf("event without lines: %+v", e)
			}
			e.Facts()
			e.TotalsByName()
		}
	})
}
