package pooler

import (
	"strings"
	"testing"
)

const mib = 1 << 20

// TestAdviseAddPooler: a pooler is advised when backends at
// max_connections take a large share of the budget while few sessions are
// active; its pool is the peak with 25% headroom.
func TestAdviseAddPooler(t *testing.T) {
	base := AdviceInput{Engine: "PostgreSQL", MaxConnections: 200, Reserved: 3, BaselineBytes: 10 * mib, BaselineFrom: "p95 of 40 backends",
		BudgetBytes: 2048 * mib, PeakActive: 12, PeakFrom: "pg_stat_activity, 60 samples"}
	cases := []struct {
		name   string
		change func(*AdviceInput)
		kind   string
		pool   int
		saved  uint64
	}{
		{"4 GB VM, 200 connections, 12 active", func(*AdviceInput) {}, "add-pooler", 15, 185 * 10 * mib},
		{"peak of 2", func(in *AdviceInput) { in.PeakActive = 1 }, "add-pooler", 2, 198 * 10 * mib},
		{"idle backends are cheap", func(in *AdviceInput) { in.BudgetBytes = 64 << 30 }, "none", 0, 0},
		{"most connections busy", func(in *AdviceInput) { in.PeakActive = 120 }, "none", 0, 0},
		{"peak unknown", func(in *AdviceInput) { in.PeakActive, in.PeakFrom = 0, "" }, "none", 0, 0},
		{"baseline unknown", func(in *AdviceInput) { in.BaselineBytes = 0 }, "none", 0, 0},
	}
	for _, c := range cases {
		in := base
		c.change(&in)
		a := Advise(in)
		if a.Kind != c.kind || a.PoolSize != c.pool || a.SavedBytes != c.saved {
			t.Errorf("%s: %s pool %d saved %d, want %s %d %d (%s)", c.name, a.Kind, a.PoolSize, a.SavedBytes, c.kind, c.pool, c.saved, a.Formula)
		}
	}
	a := Advise(base)
	want := "max_connections 200 x 10 MiB per backend (p95 of 40 backends) = 1.95 GiB, 98% of the budget 2 GiB; peak active 12 " +
		"(pg_stat_activity, 60 samples): pool = ceil(12 x 1.25) = 15; saves (200 - 15) x 10 MiB = 1.81 GiB"
	if a.Formula != want {
		t.Errorf("formula\n%s\nwant\n%s", a.Formula, want)
	}
}

// TestAdviseExistingPooler: pools larger than the server lets in, pools
// without a bound and waiting clients are findings.
func TestAdviseExistingPooler(t *testing.T) {
	l := Limit{Max: 120, Known: true, Formula: "pgbouncer 1: app 120 (pool_size 100 + reserve_pool 20)", Pools: []PoolPart{{Max: 120}},
		Measured: &Measured{ClientsWaiting: 4, MaxWaitSeconds: 3}}
	a := Advise(AdviceInput{Engine: "PostgreSQL", MaxConnections: 100, Reserved: 3, BaselineBytes: 8 * mib, Limit: &l})
	if a.Kind != "pooler-findings" || len(a.Findings) != 2 || !strings.Contains(a.Findings[0].Title, "more than the 97 PostgreSQL lets in") ||
		!strings.Contains(a.Findings[1].Title, "4 client(s) wait") {
		t.Errorf("%+v", a)
	}
	l.Max, l.Measured = 40, nil
	if a := Advise(AdviceInput{Engine: "PostgreSQL", MaxConnections: 100, Reserved: 3, BaselineBytes: 8 * mib, Limit: &l}); a.Kind != "pooler-ok" ||
		len(a.Evidence) != 1 || !strings.Contains(a.Evidence[0], "= 320 MiB") {
		t.Errorf("%+v", a)
	}
}
