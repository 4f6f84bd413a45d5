package postmortem

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// A bundle keeps only the OOM reports of a kernel log: parsing the excerpt
// gives the same events as parsing the whole log, for every recorded and
// hand-written kernel format.
func TestKernelExcerptParsesTheSame(t *testing.T) {
	files, _ := filepath.Glob("../oomlog/testdata/*.txt")
	if len(files) < 9 {
		t.Fatalf("only %d kernel fixtures", len(files))
	}
	for _, f := range files {
		l := readLog(t, KindKernel, f)
		full, _ := parseKernelLog(l, time.UTC, 2026)
		ex := KernelExcerpt(l, time.UTC)
		if !ex.Excerpt || len(ex.Text) > len(l.Text) {
			t.Errorf("%s: not an excerpt", f)
		}
		got, _ := parseKernelLog(ex, time.UTC, 2026)
		a, _ := json.Marshal(full)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Errorf("%s: the excerpt parses differently:\nfull    %s\nexcerpt %s", f, a, b)
		}
	}
}
