package xray

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/dblog"
)

func recordedDump(t testing.TB, name string) dblog.ContextDump {
	t.Helper()
	f, err := os.Open("../dblog/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, err := dblog.ParsePostgres(f)
	if err != nil || len(log.ContextDumps) != 1 {
		t.Fatalf("%d dumps, %v", len(log.ContextDumps), err)
	}
	return log.ContextDumps[0]
}

// The recorded PostgreSQL 16 dump: a prepared statement, an open cursor.
func TestAnalyzeRecorded(t *testing.T) {
	d := recordedDump(t, "postgresql-16-log-memory-contexts.log")
	groups := Classify(d.Contexts)
	want := map[string]Group{"TopMemoryContext": GroupOther, "CacheMemoryContext": GroupCatalog, "index info": GroupCatalog,
		"CachedPlanSource": GroupPlan, "CachedPlanQuery": GroupPlan, "ExecutorState": GroupQuery, "ExprContext": GroupQuery,
		"PortalContext": GroupQuery, "Timezones": GroupOther, "GUC hash table": GroupOther, "Prepared Queries": GroupPlan,
		"Operator class cache": GroupCatalog, "MessageContext": GroupQuery}
	for i, c := range d.Contexts {
		if g, ok := want[c.Name]; ok && groups[i] != g {
			t.Errorf("%s (depth %d) in %s, want %s", c.Name, c.Depth, groups[i], g)
		}
	}
	total, _, used := d.Sums()
	m := Measure{PssAnonBytes: 3 << 20, Exact: true, VmPTEBytes: 200 << 10, VmSwapBytes: 0, JITKnown: true}
	br := Analyze(d, m, 5)
	var sum uint64
	for _, p := range br.Parts {
		sum += p.Bytes
	}
	if sum != m.PrivateBytes() || br.Reconcile.ContextsUsedBytes != used || br.Reconcile.ContextsTotalBytes != total {
		t.Errorf("parts add up to %d, private %d; reconcile %+v", sum, m.PrivateBytes(), br.Reconcile)
	}
	if part(&br, GroupOutside).Bytes != 3<<20-used || br.Dominant != GroupOutside || len(br.Largest) != 5 || br.Largest[0].Name != "CacheMemoryContext" {
		t.Errorf("outside %d, dominant %s, largest %+v", part(&br, GroupOutside).Bytes, br.Dominant, br.Largest)
	}
	// Fewer anonymous bytes than the contexts count as used: the excess is
	// said (never touched), outside is 0, nothing is negative.
	small := Measure{PssAnonBytes: used / 2, Exact: true, VmPTEBytes: 4096, JITKnown: true}
	br = Analyze(d, small, 5)
	if br.Reconcile.UntouchedBytes != used-used/2 || part(&br, GroupOutside).Bytes != 0 {
		t.Errorf("untouched %d, outside %d", br.Reconcile.UntouchedBytes, part(&br, GroupOutside).Bytes)
	}
}

// "N more child contexts" under CacheMemoryContext is split like the
// listed siblings: 3 plan sources listed, one index info.
func TestSplitMore(t *testing.T) {
	text := `2026-11-27 14:11:28.039 UTC [9] LOG:  level: 0; TopMemoryContext: 100 total in 1 blocks; 0 free (0 chunks); 100 used
2026-11-27 14:11:28.039 UTC [9] LOG:  level: 1; CacheMemoryContext: 1000 total in 1 blocks; 0 free (0 chunks); 1000 used
2026-11-27 14:11:28.039 UTC [9] LOG:  level: 2; CachedPlanSource: 100 total in 1 blocks; 0 free (0 chunks); 100 used: q1
2026-11-27 14:11:28.039 UTC [9] LOG:  level: 3; CachedPlanQuery: 200 total in 1 blocks; 0 free (0 chunks); 200 used
2026-11-27 14:11:28.039 UTC [9] LOG:  level: 2; CachedPlanSource: 100 total in 1 blocks; 0 free (0 chunks); 100 used: q2
2026-11-27 14:11:28.039 UTC [9] LOG:  level: 3; CachedPlanQuery: 200 total in 1 blocks; 0 free (0 chunks); 200 used
2026-11-27 14:11:28.039 UTC [9] LOG:  level: 2; index info: 150 total in 1 blocks; 0 free (0 chunks); 150 used: i1
2026-11-27 14:11:28.039 UTC [9] LOG:  level: 2; index info: 150 total in 1 blocks; 0 free (0 chunks); 150 used: i2
2026-11-27 14:11:28.039 UTC [9] LOG:  level: 1; 40 more child contexts containing 9000 total in 40 blocks; 0 free (0 chunks); 9000 used
2026-11-27 14:11:28.039 UTC [9] LOG:  Grand total: 11000 bytes in 48 blocks; 0 free (0 chunks); 11000 used
`
	log, err := dblog.ParsePostgres(strings.NewReader(text))
	if err != nil || len(log.ContextDumps) != 1 || !log.ContextDumps[0].Complete {
		t.Fatalf("%+v %v", log.ContextDumps, err)
	}
	br := Analyze(log.ContextDumps[0], Measure{PssAnonBytes: 20000, Exact: true, JITKnown: true}, 3)
	plan, cat := part(&br, GroupPlan), part(&br, GroupCatalog)
	if plan.Bytes != 600+6000 || plan.EstimatedBytes != 6000 || cat.Bytes != 1300+3000 || cat.EstimatedBytes != 3000 {
		t.Errorf("plan %+v catalog %+v", plan, cat)
	}
}

func FuzzAnalyze(f *testing.F) {
	b, err := os.ReadFile("../dblog/testdata/postgresql-18-log-memory-contexts.log")
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	f.Add(strings.Join(lines[4:40], "\n"), uint64(1<<20))
	f.Add("LOG:  level: 3; a: 1 total in 1 blocks; 0 free (0 chunks); 1 used\nLOG:  level: 0; 3 more child contexts containing 5 total in 1 blocks; 0 free (0 chunks); 5 used\nLOG:  Grand total: 6 bytes in 2 blocks; 0 free (0 chunks); 6 used", uint64(3))
	f.Fuzz(func(t *testing.T, text string, anon uint64) {
		log, err := dblog.ParsePostgres(strings.NewReader(text))
		if err != nil {
			return
		}
		for _, d := range log.ContextDumps {
			m := Measure{PssAnonBytes: anon % (1 << 50), Exact: true, VmPTEBytes: 4096, JITKnown: true}
			br := Analyze(d, m, 3)
			var sum uint64
			for _, p := range br.Parts {
				sum += p.Bytes
			}
			if len(d.Contexts) > 0 && sum-br.Reconcile.UntouchedBytes > m.PrivateBytes()+uint64(len(d.Contexts)) {
				t.Fatalf("parts %d - untouched %d > private %d", sum, br.Reconcile.UntouchedBytes, m.PrivateBytes())
			}
		}
	})
}

func TestSummarize(t *testing.T) {
	d := recordedDump(t, "postgresql-16-log-memory-contexts.log")
	plain := Analyze(d, Measure{PssAnonBytes: 2 << 20, Exact: true, JITKnown: true}, 3)
	jit := Analyze(d, Measure{PssAnonBytes: 12 << 20, Exact: true, JITKnown: true, JITLoaded: true, JITBytes: 8 << 20}, 3)
	r := Result{Backends: []Backend{
		{PID: 1, Measure: &Measure{JITKnown: true}, Breakdown: &plain},
		{PID: 2, Measure: &Measure{JITKnown: true, JITLoaded: true}, Breakdown: &jit},
		{PID: 3, Problem: "no dump"},
	}}
	f := Summarize(r)
	if f.Backends != 2 || f.JITBackends != 1 || f.JITBytes != 8<<20 || f.BaselineBytes != plain.Part(GroupOther)+plain.Part(GroupOutside) {
		t.Errorf("figures %+v", f)
	}
	if f := Summarize(Result{}); f.Backends != 0 || f.BaselineBytes != 0 {
		t.Errorf("no backend: %+v", f)
	}
}

func TestCompare(t *testing.T) {
	d := recordedDump(t, "postgresql-16-log-memory-contexts.log")
	mk := func(anon uint64, at time.Time) Backend {
		br := Analyze(d, Measure{PssAnonBytes: anon, Exact: true, JITKnown: true}, 3)
		return Backend{PID: 7, DumpAt: at, Breakdown: &br}
	}
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	c, ok := Compare(mk(4<<20, t0), mk(40<<20, t0.Add(10*time.Minute)))
	if !ok || c.Verdict != "leak outside memory contexts" || c.Deltas[0].Group != GroupOutside {
		t.Errorf("outside grew: %+v", c)
	}
	if _, ok := Compare(mk(4<<20, t0), mk(40<<20, t0)); ok {
		t.Error("compared two X-rays of the same time")
	}
}
