package plan

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// TestVersionsPgBin plans a stopped cluster and a what-if configuration of
// every PostgreSQL version (installed and fetched) with Request.Bin (--pg-bin)
// naming its binaries: `postgres -C shared_memory_size_in_huge_pages` must
// give the need the cluster itself reports (15+; before 15 see
// TestVersionsPgBinEstimates).
func TestVersionsPgBin(t *testing.T) {
	settings := map[string]string{"shared_buffers": "128MB", "max_connections": "20"}
	pgtest.ForEachVersion(t, 15, func(t *testing.T, v pgtest.Version) {
		c := pgtest.Create(t, settings)
		want := uint64(pgtest.HugePagesNeeded(t, c))
		// From here only Bin names the binaries: $DBMEM_PG_BIN would find them too.
		t.Setenv(pgcluster.BinEnv, "")
		ctx := context.Background()
		host := verHost(t)
		in, err := Build(ctx, Request{Snapshot: host, DataDir: c.DataDir, Bin: v.Bin})
		if err != nil {
			t.Fatal(err)
		}
		if n := in.Instances[0].Need; !n.Exact || n.Pages != want || !strings.HasPrefix(n.Source, "postgres -D "+c.DataDir) {
			t.Errorf("stopped PostgreSQL %d: need %+v, the cluster says %d pages", v.Major, n, want)
		}
		in, err = Build(ctx, Request{WhatIf: WhatIf{RAMBytes: 64 << 30, PGMajor: v.Major}, Changes: settings, Bin: v.Bin})
		if err != nil {
			t.Fatal(err)
		}
		if n := in.Instances[0].Need; !n.Exact || n.Pages != want || !strings.Contains(n.Source, "throwaway") {
			t.Errorf("what-if PostgreSQL %d: need %+v (notes %q), the cluster says %d pages", v.Major, n, in.Notes, want)
		}
		if v.Installed {
			return
		}
		// Without Bin, a version that is not installed cannot be asked.
		_, err = Build(ctx, Request{Snapshot: host, DataDir: c.DataDir})
		if err == nil || !strings.Contains(err.Error(), "--pg-bin") {
			t.Errorf("stopped PostgreSQL %d without Bin: %v, want an error naming --pg-bin", v.Major, err)
		}
	})
}

// TestVersionsPgBinEstimates: PostgreSQL 13 and 14 cannot compute
// shared_memory_size_in_huge_pages, so a stopped cluster and a what-if are
// estimated from their settings, marked inexact with a note saying why,
// never reported as asked.
func TestVersionsPgBinEstimates(t *testing.T) {
	settings := map[string]string{"shared_buffers": "128MB", "max_connections": "20"}
	pgtest.ForEachVersion(t, 0, func(t *testing.T, v pgtest.Version) {
		if v.Major >= 15 {
			t.Skipf("PostgreSQL %d computes its need: TestVersionsPgBin", v.Major)
		}
		c := pgtest.Create(t, settings)
		t.Setenv(pgcluster.BinEnv, "")
		ctx := context.Background()
		in, err := Build(ctx, Request{Snapshot: verHost(t), DataDir: c.DataDir, Bin: v.Bin})
		if err != nil {
			t.Fatal(err)
		}
		checkEstimated(t, "stopped", in.Instances[0].Need, in.Notes, "cannot compute shared_memory_size_in_huge_pages")
		in, err = Build(ctx, Request{WhatIf: WhatIf{RAMBytes: 64 << 30, PGMajor: v.Major}, Changes: settings, Bin: v.Bin})
		if err != nil {
			t.Fatal(err)
		}
		checkEstimated(t, "what-if", in.Instances[0].Need, in.Notes, "estimated from settings")
	})
}

// checkEstimated: an inexact need of 128 MiB shared_buffers and more (the
// segment is larger than shared_buffers), with a note that says why.
func checkEstimated(t *testing.T, what string, n advise.HugePageNeed, notes []string, note string) {
	t.Helper()
	if n.Exact || n.SharedBytes <= 128<<20 || n.Pages < 64 {
		t.Errorf("%s: need %+v, want an inexact estimate above 128 MiB", what, n)
	}
	if !strings.Contains(strings.Join(notes, "\n"), note) {
		t.Errorf("%s: notes %q, want one saying %q", what, notes, note)
	}
}

func verHost(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	h, _, err := linux.ReadHost(linux.DefaultFS())
	if err != nil {
		t.Fatal(err)
	}
	return &snapshot.Snapshot{Host: h, TakenAt: time.Now()}
}
