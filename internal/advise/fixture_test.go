package advise

import (
	"context"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/measure"
	"path/filepath"
	"testing"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// fixture reads a recorded tree (kernel 6.18, PostgreSQL 15.20, 10 client
// backends that each read 1.1 GiB through shared_buffers; see its README).
func fixture(t *testing.T, name string) *snapshot.Snapshot {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "fixtures", name)
	s, err := snapshot.Take(context.Background(), snapshot.Options{FS: capture.TreeFS(dir), Live: capture.TreeLive{Dir: dir}, Method: measure.Smaps})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Postgres) != 1 {
		t.Fatalf("fixture %s: %d instances, want 1", name, len(s.Postgres))
	}
	return s
}

func TestCheckFixtureHugePagesOff(t *testing.T) {
	fs := Check(fixture(t, "pg15-hugepages-off"), Options{})
	got := ids(fs)
	for id, want := range map[string]finding.Severity{
		"oom.ranking":                finding.Warning, // a backend holding 1.09 GiB of RssShmem ranks first
		"hugepages.off":              finding.Notice,  // 1.30 GiB segment in 4 KiB pages
		"overcommit.mode":            finding.Notice,
		"oom.postmaster_unprotected": finding.Notice,
		"memory.worst_case":          finding.Info,
	} {
		if got[id] != want {
			t.Errorf("%s: %v, want %s (all: %v)", id, got[id], want, got)
		}
	}
	for _, id := range []string{"pagetables.now", "pagetables.projected", "hugepages.fallback", "thp.enabled"} {
		if _, ok := got[id]; ok {
			t.Errorf("unexpected %s", id)
		}
	}
	f, _ := find(fs, "hugepages.off")
	// SHOW shared_memory_size_in_huge_pages was recorded: 666 pages.
	if len(f.Settings) != 1 || f.Settings[0].Name != "vm.nr_hugepages" || f.Settings[0].Value != "666" {
		t.Errorf("hugepages.off settings %+v", f.Settings)
	}
}

func TestCheckFixtureHugePagesOn(t *testing.T) {
	got := ids(Check(fixture(t, "pg15-hugepages-on"), Options{}))
	if got["oom.ranking"] != finding.Info {
		t.Errorf("oom.ranking %v, want info: shared memory in huge pages is in no RSS", got["oom.ranking"])
	}
	for _, id := range []string{"hugepages.off", "hugepages.fallback", "hugepages.pool_unused", "hugepages.pool_oversized", "hugepages.pool_too_small", "pagetables.projected"} {
		if _, ok := got[id]; ok {
			t.Errorf("unexpected %s with the segment in huge pages (all: %v)", id, got)
		}
	}
}
