package plan

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/measure"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// idleBackends opens n connections that each ran a first query (the
// catalog caches a session fills at once) and stay idle; it returns
// their PIDs.
func idleBackends(t *testing.T, c *pgcluster.Cluster, n int, sqls ...string) []int {
	t.Helper()
	var pids []int
	for i := 0; i < n; i++ {
		conn := pgtest.Connect(t, c)
		for _, s := range append([]string{"SELECT count(*) FROM pg_class"}, sqls...) {
			if _, err := conn.Exec(context.Background(), s, pgx.QueryExecModeSimpleProtocol); err != nil {
				t.Fatal(err)
			}
		}
		pids = append(pids, int(conn.PgConn().PID()))
	}
	return pids
}

// pssAnon measures the exact Pss_Anon (+ swap) of the PIDs, page tables
// apart, as the budget's baseline does.
func pssAnon(t *testing.T, c *pgcluster.Cluster, pids []int) []uint64 {
	t.Helper()
	s, err := snapshot.Take(context.Background(), snapshot.Options{FS: linux.DefaultFS(), Method: measure.Auto})
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, in := range s.Postgres {
		if in.PostmasterPID != c.PID {
			continue
		}
		for _, pid := range pids {
			p, ok := in.Process(pid)
			cost, exact, known := p.PrivateCost()
			if !ok || !known || !exact {
				t.Fatalf("backend %d: private cost not measured exactly (run as root)", pid)
			}
			out = append(out, cost-*p.Status.VmPTEBytes)
		}
	}
	if len(out) != len(pids) {
		t.Fatalf("measured %d of %d backends", len(out), len(pids))
	}
	return out
}

// within reports whether got is within frac of want.
func within(got, want uint64, frac float64) bool {
	return float64(got) >= float64(want)*(1-frac) && float64(got) <= float64(want)*(1+frac)
}

// TestVersionBaselines measures, on every version, an idle client
// backend's Pss_Anon after a first query: the what-if defaults of
// internal/budget (defaults.go, docs/check-plan.md) must be what it
// measures, within 30% (the heap a backend keeps varies with the build).
func TestVersionBaselines(t *testing.T) {
	pgtest.ForEachVersion(t, 13, func(t *testing.T, v pgtest.Version) {
		c := pgtest.Start(t, map[string]string{"max_connections": "20"})
		got := pssAnon(t, c, idleBackends(t, c, 10))
		med, p95 := postgres.Percentile(got, 50), postgres.Percentile(got, 95)
		d := budget.DefaultFor(v.Major)
		t.Logf("PostgreSQL %d: idle backend Pss_Anon median %d kB, p95 %d kB (defaults.go: %d, %d)", v.Major, med>>10, p95>>10,
			d.BaselineMedianBytes>>10, d.BaselineP95Bytes>>10)
		if !within(med, d.BaselineMedianBytes, 0.30) || !within(p95, d.BaselineP95Bytes, 0.30) {
			t.Errorf("PostgreSQL %d: measured median %d kB, p95 %d kB; defaults.go says %d, %d", v.Major, med>>10, p95>>10,
				d.BaselineMedianBytes>>10, d.BaselineP95Bytes>>10)
		}
	})
}

// TestJITCost measures what JIT compilation adds to a backend (PostgreSQL
// 15, the only binaries here with llvmjit): backends that compiled a
// query against backends that did not; budget.JITCostBytes must be what it
// measures, within 40%.
func TestJITCost(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"max_connections": "20", "jit": "on"})
	if _, err := c.Postgres(context.Background(), "-C", "jit_provider"); err != nil {
		t.Fatal(err)
	}
	plain := pssAnon(t, c, idleBackends(t, c, 5))
	jit := `SELECT sum(g) FROM generate_series(1, 100000) g`
	compiled := pssAnon(t, c, idleBackends(t, c, 5, "SET jit_above_cost = 0", "SET jit_inline_above_cost = 0", "SET jit_optimize_above_cost = 0", jit))
	a, b := postgres.Percentile(compiled, 50), postgres.Percentile(plain, 50)
	if a <= b {
		t.Fatalf("backends that JIT-compiled: median %d kB, not above %d kB: was llvmjit loaded?", a>>10, b>>10)
	}
	t.Logf("JIT: median %d kB with, %d kB without: %d kB", a>>10, b>>10, (a-b)>>10)
	if !within(a-b, budget.JITCostBytes, 0.40) {
		t.Errorf("JIT cost measured %d kB, budget.JITCostBytes is %d kB", (a-b)>>10, budget.JITCostBytes>>10)
	}
}
