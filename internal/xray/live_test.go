package xray

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

// noJIT keeps JIT out of the tests that are not about it.
var noJIT = map[string]string{"jit": "off", "shared_buffers": "64MB", "max_parallel_workers_per_gather": "0"}

// A backend that touched 2,000 tables (each with its primary key index) has
// CacheMemoryContext as its largest context and catalog caches as the
// largest part of its private cost; a fresh backend's contexts are
// smaller; the contexts' used bytes reconcile with Pss_Anon.
func TestLiveCatalogCaches(t *testing.T) {
	c := pgtestStart(t, noJIT)
	const tables = 2000
	var ddl strings.Builder
	for i := 1; i <= tables; i++ {
		fmt.Fprintf(&ddl, "CREATE TABLE t%d (a int PRIMARY KEY, b text);", i)
	}
	execOrFail(t, c, ddl.String())
	_, fresh := backend(t, c, "SELECT 1")
	_, pid := backend(t, c, fmt.Sprintf(`DO $$ BEGIN FOR i IN 1..%d LOOP EXECUTE format('SELECT * FROM t%%s WHERE a = 1', i); END LOOP; END $$`, tables))
	_, b := xrayOne(t, c, pid)
	checkAddsUp(t, b)
	br := b.Breakdown
	if br.Largest[0].Name != "CacheMemoryContext" || br.Dominant != GroupCatalog {
		t.Errorf("largest context %s, largest part %s; want CacheMemoryContext, catalog caches", br.Largest[0].Name, br.Dominant)
	}
	checkBand(t, b)
	_, f := xrayOne(t, c, fresh)
	checkAddsUp(t, f)
	if f.Breakdown.Reconcile.ContextsTotalBytes*4 > br.Reconcile.ContextsTotalBytes || part(f.Breakdown, GroupCatalog).Bytes*4 > part(br, GroupCatalog).Bytes {
		t.Errorf("a fresh backend's contexts (%d, catalog %d) are not much smaller than the busy one's (%d, catalog %d)",
			f.Breakdown.Reconcile.ContextsTotalBytes, part(f.Breakdown, GroupCatalog).Bytes, br.Reconcile.ContextsTotalBytes, part(br, GroupCatalog).Bytes)
	}
	_ = context.Background()
}

// A backend holding 3,000 prepared statements: plan cache is the largest
// part.
func TestLivePreparedStatements(t *testing.T) {
	c := pgtestStart(t, noJIT)
	execOrFail(t, c, "CREATE TABLE orders (id int PRIMARY KEY, customer int, total numeric, note text)")
	var sqls []string
	for i := 0; i < 3000; i += 100 {
		var b strings.Builder
		for j := i; j < i+100; j++ {
			fmt.Fprintf(&b, "PREPARE p%d AS SELECT id, customer, total, note FROM orders WHERE customer = $1 AND total > %d ORDER BY id LIMIT 10;", j, j)
		}
		sqls = append(sqls, b.String())
	}
	_, pid := backend(t, c, sqls...)
	_, b := xrayOne(t, c, pid)
	checkAddsUp(t, b)
	if b.Breakdown.Dominant != GroupPlan {
		t.Errorf("largest part %s, want plan cache", b.Breakdown.Dominant)
	}
	checkBand(t, b)
}

// A hash join with a big work_mem, X-rayed while its cursor holds the
// hash table: running query is the largest part, HashBatchContext or
// HashTableContext the largest context.
func TestLiveHashJoin(t *testing.T) {
	c := pgtestStart(t, noJIT)
	execOrFail(t, c, "CREATE TABLE big AS SELECT g AS k, repeat('x', 40) AS pad FROM generate_series(1, 600000) g", "ANALYZE big")
	_, pid := backend(t, c, "SET work_mem = '1GB'", "SET enable_mergejoin = off", "SET enable_nestloop = off",
		"BEGIN", "DECLARE c CURSOR FOR SELECT a.k, b.pad FROM big a JOIN big b USING (k)", "FETCH 1 FROM c")
	_, b := xrayOne(t, c, pid)
	checkAddsUp(t, b)
	br := b.Breakdown
	if br.Dominant != GroupQuery || !strings.HasPrefix(br.Largest[0].Name, "Hash") {
		t.Errorf("largest part %s, largest context %s; want running query, a hash context", br.Dominant, br.Largest[0].Name)
	}
	checkBand(t, b)
}

// A backend that JIT-compiled (every query, as jit_above_cost = 0; the
// inlining and optimisation thresholds keep their defaults): libLLVM's
// private pages and the emitted code make JIT the largest part. With
// inlining, LLVM's own heap (malloc, not separable) makes "outside memory
// contexts" larger still, and the breakdown says JIT is loaded. Only the
// installed PostgreSQL has llvmjit (the npm builds do not).
func TestLiveJIT(t *testing.T) {
	bin, err := pgcluster.FindBin("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bin, "..", "lib", "llvmjit.so")); err != nil {
		t.Skipf("no llvmjit.so beside %s: this PostgreSQL cannot JIT-compile", bin)
	}
	c := pgtestStart(t, map[string]string{"jit": "on", "jit_above_cost": "0", "shared_buffers": "64MB", "max_parallel_workers_per_gather": "0"})
	conn, pid := backend(t, c)
	var jitted int
	if err := conn.QueryRow(context.Background(), "SELECT (sum(g) % 7)::int FROM generate_series(1, 100000) g").Scan(&jitted); err != nil {
		t.Fatal(err)
	}
	_, b := xrayOne(t, c, pid)
	checkAddsUp(t, b)
	if !b.Measure.JITLoaded || b.Breakdown.Dominant != GroupJIT {
		t.Errorf("JIT loaded %v, %d bytes; largest part %s, want JIT", b.Measure.JITLoaded, b.Measure.JITBytes, b.Breakdown.Dominant)
	}
}

// Every version with the function (14-18): a backend with a prepared
// statement and 150 tables read (more children of CacheMemoryContext than
// the 100 a dump lists) is X-rayed whole, in each log format the version
// writes with the logging collector (jsonlog from 15), and without it
// (the postmaster's stderr, as pg_ctl -l sends it).
func TestLiveVersions(t *testing.T) {
	pgtest.ForEachVersion(t, 14, func(t *testing.T, v pgtest.Version) {
		for _, dest := range destinationsOf(v.Major) {
			t.Run(dest, func(t *testing.T) { versionCase(t, v.Major, dest) })
		}
	})
}

func destinationsOf(major int) []string {
	out := []string{"stderr", "stderr,csvlog"}
	if major >= 15 {
		out = append(out, "jsonlog")
	}
	return out
}

func versionCase(t *testing.T, major int, dest string) {
	s := map[string]string{"jit": "off", "shared_buffers": "32MB"}
	want := "stderr"
	if dest != "stderr" {
		s["logging_collector"], s["log_destination"] = "on", dest
		want = map[string]string{"stderr,csvlog": "csvlog", "jsonlog": "jsonlog"}[dest]
	}
	c := pgtestStart(t, s)
	var ddl strings.Builder
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&ddl, "CREATE TABLE t%d (a int PRIMARY KEY);", i)
	}
	execOrFail(t, c, ddl.String())
	_, pid := backend(t, c, "PREPARE q AS SELECT count(*) FROM pg_class WHERE relname = $1",
		`DO $$ BEGIN FOR i IN 1..150 LOOP EXECUTE format('SELECT * FROM t%s', i); END LOOP; END $$`)
	r, b := xrayOne(t, c, pid)
	if r.Log.Format != want {
		t.Errorf("log %+v, want %s", r.Log, want)
	}
	checkAddsUp(t, b)
	var sawPlan, sawMore bool
	for _, x := range b.Breakdown.Largest {
		sawPlan = sawPlan || x.Name == "CachedPlanSource" && strings.HasPrefix(x.Ident, "PREPARE q AS")
	}
	sawPlan = sawPlan || part(b.Breakdown, GroupPlan).Contexts > 0
	sawMore = part(b.Breakdown, GroupCatalog).EstimatedBytes > 0
	if !sawPlan || !sawMore || b.Breakdown.Dominant != GroupCatalog {
		t.Errorf("plan cache seen %v, catalog's 'more child contexts' seen %v, largest part %s", sawPlan, sawMore, b.Breakdown.Dominant)
	}
}

// PostgreSQL 13 has no pg_log_backend_memory_contexts: the catalog says
// so and the X-ray says it needs 14, asking no backend.
func TestLivePG13NeedsFourteen(t *testing.T) {
	pgtest.ForEachVersion(t, 13, func(t *testing.T, v pgtest.Version) {
		if v.Major < 14 {
			pg13Case(t)
		}
	})
}

func pg13Case(t *testing.T) {
	c := pgtestStart(t, map[string]string{"shared_buffers": "32MB"})
	_, pid := backend(t, c, "SELECT 1")
	conn := connector(c, "")
	in := instance(t, c, conn)
	r := Run(context.Background(), in, []int{pid}, Options{Caller: conn, Wait: time.Minute})
	if !strings.Contains(r.Problem, "needs PostgreSQL 14") || r.Backends[0].Breakdown != nil {
		t.Errorf("problem %q", r.Problem)
	}
	var buf strings.Builder
	if err := WriteText(&buf, []Result{r}, 100); err != nil || !strings.Contains(buf.String(), "X-ray needs PostgreSQL 14") {
		t.Errorf("text (%v):\n%s", err, buf.String())
	}
}

// A role without the grant is told the GRANT that lets it; with it, the
// X-ray works for that role. A PID that is not a backend of the instance
// is never asked.
func TestLiveGrantAndForeignPID(t *testing.T) {
	c := pgtestStart(t, noJIT)
	execOrFail(t, c, "CREATE ROLE monitor LOGIN")
	_, pid := backend(t, c, "SELECT 1")
	conn := connector(c, "monitor")
	in := instance(t, c, conn)
	r := Run(context.Background(), in, []int{pid}, Options{Caller: conn, Wait: time.Minute})
	want := `GRANT EXECUTE ON FUNCTION pg_catalog.pg_log_backend_memory_contexts(integer) TO "monitor"`
	if !strings.Contains(r.Problem, "role monitor may not execute") || !strings.HasPrefix(r.Fix, want) {
		t.Errorf("problem %q fix %q", r.Problem, r.Fix)
	}
	execOrFail(t, c, "GRANT EXECUTE ON FUNCTION pg_catalog.pg_log_backend_memory_contexts(integer) TO monitor")
	r = Run(context.Background(), in, []int{pid}, Options{Caller: conn, Wait: 2 * time.Minute})
	if r.Problem != "" || r.Backends[0].Breakdown == nil || r.Role != "monitor" || r.Superuser {
		t.Fatalf("with the grant: %q, backend %+v", r.Problem, r.Backends[0])
	}
	// The test process itself is no backend: Run refuses it before asking,
	// and the server-side check refuses it too.
	r = Run(context.Background(), in, []int{os.Getpid()}, Options{Caller: conn, Wait: time.Minute})
	if b := r.Backends[0]; !strings.Contains(b.Problem, "is not a process of postmaster") {
		t.Errorf("own PID: %+v", b)
	}
	a, err := conn.LogContexts(context.Background(), in, []int{os.Getpid()})
	if err != nil || len(a.Calls) != 1 || !strings.Contains(a.Calls[0].Error, "not asked") || a.Calls[0].Sent {
		t.Errorf("LogContexts of a foreign PID: %+v %v", a, err)
	}
}
