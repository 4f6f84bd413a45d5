package unitlog

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestExcerptParsesAlike: for every recorded service log of the corpus,
// with other daemons' lines and a journal header mixed in, the excerpt
// gives the same events as the whole log and holds none of the others.
func TestExcerptParsesAlike(t *testing.T) {
	files, _ := filepath.Glob("../postmortem/testdata/corpus/[soek]0*.log")
	if len(files) < 10 {
		t.Fatalf("%d corpus files", len(files))
	}
	const header = "-- Logs begin at Thu 2026-09-10 14:00:00 CST, end at Thu 2026-09-10 16:00:00 CST. --"
	const other = "Sep 10 14:59:50 image sshd[812]: Accepted password for alice-noise from 10.0.0.9\n"
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := header + "\n" + other + string(b) + other
		whole, _ := Parse(strings.NewReader(text))
		lines, err := Options{}.Excerpt(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		ex := strings.Join(lines, "\n")
		part, _ := Parse(strings.NewReader(ex))
		if !reflect.DeepEqual(whole.Units, part.Units) || !reflect.DeepEqual(whole.Killers, part.Killers) {
			t.Errorf("%s: the excerpt gives %d units and %d killers, the log %d and %d\n%+v\n%+v", filepath.Base(p),
				len(part.Units), len(part.Killers), len(whole.Units), len(whole.Killers), part.Killers, whole.Killers)
		}
		if strings.Contains(ex, "alice-noise") || (len(lines) > 0 && lines[0] != header) {
			t.Errorf("%s: excerpt %q: another daemon's line kept, or the header lost", filepath.Base(p), lines)
		}
	}
}

func FuzzExcerpt(f *testing.F) {
	f.Add([]byte("-- Logs begin at x\nSep 10 14:59:49 image systemd[1]: a.service: Failed with result 'oom-kill'.\nx y[1]: z\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		lines, err := Options{}.Excerpt(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if len(strings.Join(lines, "\n")) > len(b) {
			t.Fatalf("the excerpt is longer than the log")
		}
	})
}
