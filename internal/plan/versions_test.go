package plan

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgtest"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// TestVersionsPgBin plans a stopped cluster and a what-if configuration of
// every PostgreSQL version (installed and fetched) with Request.Bin (--pg-bin)
// naming its binaries: `postgres -C shared_memory_size_in_huge_pages` must
// give the need the cluster itself reports.
func TestVersionsPgBin(t *testing.T) {
	settings := map[string]string{"shared_buffers": "128MB", "max_connections": "20"}
	pgtest.ForEachVersion(t, 0, func(t *testing.T, v pgtest.Version) {
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

func verHost(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	h, _, err := linux.ReadHost(linux.DefaultFS())
	if err != nil {
		t.Fatal(err)
	}
	return &snapshot.Snapshot{Host: h, TakenAt: time.Now()}
}
