package advise

import (
	"context"
	"github.com/dbmem/dbmem/internal/measure"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/archetype/archetypetest"
	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// Bytes at stake are the numbers the findings already rest on: the
// unused pool, the projected page tables; a finding whose bytes cannot
// be said has none (never 0).
func TestBytesAtStake(t *testing.T) {
	dir := archetypetest.Dir(t, "pg15-pool-unused-26pct")
	s, err := snapshot.Take(context.Background(), snapshot.Options{FS: capture.TreeFS(dir), Live: capture.TreeLive{Dir: dir}, Method: measure.Smaps})
	if err != nil {
		t.Fatal(err)
	}
	fs := Check(s, Options{})
	sh := s.Postgres[0].Shared
	pt := PageTableBytes(100, sh.SizeBytes, 4096)
	for id, want := range map[string]uint64{
		"hugepages.pool_unused": 8560 * 2 << 20,
		"hugepages.off":         pt,
		"pagetables.projected":  pt,
	} {
		f, ok := find(fs, id)
		switch {
		case !ok:
			t.Errorf("no %s in %v", id, ids(fs))
		case f.BytesAtStake == nil:
			t.Errorf("%s: no bytes at stake", id)
		case *f.BytesAtStake != want:
			t.Errorf("%s: %d bytes at stake, want %d (%s)", id, *f.BytesAtStake, want, f.StakeFormula)
		case f.StakeFormula == "":
			t.Errorf("%s: no formula", id)
		}
	}
	if f, _ := find(fs, "pagetables.projected"); !strings.Contains(f.StakeFormula, "100 x") {
		t.Errorf("formula %q lacks max_connections", f.StakeFormula)
	}
	for _, f := range fs {
		if strings.HasPrefix(f.ID, "oom.") && f.BytesAtStake != nil {
			t.Errorf("%s has %d bytes at stake: nothing computes them", f.ID, *f.BytesAtStake)
		}
		if f.BytesAtStake != nil && *f.BytesAtStake == 0 {
			t.Errorf("%s: 0 bytes at stake", f.ID)
		}
	}
}
