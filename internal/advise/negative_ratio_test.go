package advise

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// TestNoNegativeOvercommitRatio: on the recorded Oracle host (104 GiB of a
// 126 GiB RAM in its SGA's pool) the ratio's arithmetic comes out negative;
// check says why no valid ratio exists and never shows the number as
// vm.overcommit_ratio, and plan sets no ratio.
func TestNoNegativeOvercommitRatio(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "archetypes", "oracle-sysv-53k-pool")
	s, err := snapshot.Take(context.Background(), snapshot.Options{FS: capture.TreeFS(dir), Live: capture.TreeLive{Dir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	f, ok := find(Check(s, Options{}), "overcommit.mode")
	if !ok {
		t.Fatal("no overcommit.mode finding")
	}
	var said bool
	for _, e := range f.Evidence {
		if e.Name == "vm.overcommit_ratio" {
			t.Errorf("evidence %q = %q reads as a setting", e.Name, e.Value)
		}
		if e.Name == "no valid vm.overcommit_ratio" && strings.Contains(e.Value, "= -") && strings.Contains(e.Value, "not a valid ratio") {
			said = true
		}
	}
	if !said {
		t.Errorf("overcommit.mode does not say why no ratio exists: %s", evidenceText(f))
	}
	for _, st := range f.Settings {
		if strings.HasPrefix(st.Value, "-") {
			t.Errorf("setting %s = %s", st.Name, st.Value)
		}
	}
	_, formula, ok := OvercommitRatio(126*GiB, 0, 104*GiB, 0.2)
	if ok || !strings.Contains(formula, "under 1: not a valid ratio") {
		t.Errorf("OvercommitRatio(126 GiB, 104 GiB pools): ok %v, %s", ok, formula)
	}
}
