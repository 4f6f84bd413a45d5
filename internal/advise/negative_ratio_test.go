package advise

import (
	"context"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/archetype/archetypetest"
	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// TestNoNegativeOvercommitRatio: on the recorded Oracle host (104 GiB of a
// 126 GiB RAM in its SGA's pool) the ratio's arithmetic comes out negative;
// check says why no valid ratio exists and never shows the number as
// vm.overcommit_ratio, and plan sets no ratio.
func TestNoNegativeOvercommitRatio(t *testing.T) {
	dir := archetypetest.Dir(t, "oracle-sysv-53k-pool")
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

// TestStrictJudgedWithPlannedPools: overcommit.mode judges the ratio with
// the pools after the plan, as plan does. pg16-pool-starves-host: today's
// 13.7 GiB pool leaves no ratio, the planned 2217 pages do (strict advised,
// the pool shrunk first); vm4g-pg13-swap2g: no pool today, but the 563
// pages the instance needs and 2 GiB of swap leave none.
func TestStrictJudgedWithPlannedPools(t *testing.T) {
	for name, want := range map[string]string{
		"pg16-pool-starves-host": "Shrink vm.nr_hugepages first",
		"vm4g-pg13-swap2g":       "Bound the databases instead",
	} {
		dir := archetypetest.Dir(t, name)
		s, err := snapshot.Take(context.Background(), snapshot.Options{FS: capture.TreeFS(dir), Live: capture.TreeLive{Dir: dir}})
		if err != nil {
			t.Fatal(err)
		}
		f, ok := find(Check(s, Options{}), "overcommit.mode")
		if !ok || !strings.HasPrefix(f.Fix, want) || !strings.Contains(evidenceText(f), "huge page pools after this plan") {
			t.Errorf("%s: overcommit.mode fix %q, want %q first, with the pools after the plan in %s", name, f.Fix, want, evidenceText(f))
		}
	}
}

// TestNoDropInWithoutUnit: a postmaster started with pg_ctl in a login
// session (pg12-strict-near-limit) gets no drop-in for a guessed
// postgresql.service: the finding says no unit runs it, as plan does.
func TestNoDropInWithoutUnit(t *testing.T) {
	dir := archetypetest.Dir(t, "pg12-strict-near-limit")
	s, err := snapshot.Take(context.Background(), snapshot.Options{FS: capture.TreeFS(dir), Live: capture.TreeLive{Dir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	f, ok := find(Check(s, Options{}), "oom.postmaster_unprotected")
	if !ok || len(f.Settings) > 0 || !strings.Contains(evidenceText(f), "a login session") || !strings.Contains(f.Fix, "pg_ctl -D") {
		t.Errorf("oom.postmaster_unprotected: settings %+v, fix %q, evidence %s", f.Settings, f.Fix, evidenceText(f))
	}
}
