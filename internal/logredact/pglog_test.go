package logredact

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/dblog"
)

// A stderr log with every kind of query text, and a password.
const stderrLog = `2026-11-22 21:57:20.001 UTC [4180] LOG:  statement: SELECT 'marker-one'
2026-11-22 21:57:20.002 UTC [4180] LOG:  duration: 1.5 ms  execute S_1: SELECT 'marker-two' WHERE id = $1
2026-11-22 21:57:20.002 UTC [4180] DETAIL:  parameters: $1 = 'marker-three'
2026-11-22 21:57:20.003 UTC [4180] ERROR:  division by zero
2026-11-22 21:57:20.003 UTC [4180] STATEMENT:  SELECT 1/0, 'marker-four'
	FROM t WHERE 'marker-five' = x
2026-11-22 21:57:20.004 UTC [4180] LOG:  statement: ALTER ROLE app PASSWORD 'pw-marker'
2026-11-22 21:57:20.005 UTC [4180] LOG:  duration: 3.1 ms  plan:
	Query Text: SELECT 'marker-six'
	Seq Scan on t  (cost=0.00..1.00 rows=1 width=4)
	  Filter: (x = 'marker-seven')
  CachedPlanSource: 4096 total in 3 blocks; 1000 free (0 chunks); 3096 used: SELECT 'marker-eight'
2026-11-22 21:57:27.056 UTC [4129] LOG:  server process (PID 4180) was terminated by signal 9: Killed
2026-11-22 21:57:27.056 UTC [4129] DETAIL:  Failed process was running: SELECT 'marker-nine'
2026-11-22 21:57:27.057 UTC [4129] LOG:  terminating any other active server processes
2026-11-22 21:57:27.076 UTC [4129] LOG:  all server processes terminated; reinitializing
2026-11-22 21:57:27.606 UTC [4129] LOG:  database system is ready to accept connections
`

func TestRedactPostgresStderr(t *testing.T) {
	out, r := PostgresLog([]byte(stderrLog), false)
	for _, m := range []string{"marker-one", "marker-two", "marker-three", "marker-four", "marker-five", "marker-six", "marker-seven", "marker-eight", "marker-nine", "pw-marker"} {
		if bytes.Contains(out, []byte(m)) {
			t.Errorf("%s survived redaction:\n%s", m, out)
		}
	}
	for _, keep := range []string{"ERROR:  division by zero", "was terminated by signal 9", "CachedPlanSource: 4096 total in 3 blocks; 1000 free (0 chunks); 3096 used\n", "DETAIL:  parameters: " + QueryRedacted} {
		if !bytes.Contains(out, []byte(keep)) {
			t.Errorf("%q is gone:\n%s", keep, out)
		}
	}
	if r.Queries < 8 || r.Dropped < 4 {
		t.Errorf("counts %+v", r)
	}
	log, err := dblog.ParsePostgres(bytes.NewReader(out))
	if err != nil || len(log.Crashes) != 1 || log.Crashes[0].Query != QueryRedacted || log.Crashes[0].ReadyAt.IsZero() {
		t.Errorf("the redacted log no longer parses as the crash: %+v %v", log.Crashes, err)
	}
	with, _ := PostgresLog([]byte(stderrLog), true)
	if !bytes.Contains(with, []byte("marker-nine")) || bytes.Contains(with, []byte("pw-marker")) {
		t.Errorf("--with-queries keeps queries, never passwords:\n%s", with)
	}
}

// The real logs recorded on this machine (PostgreSQL 15.20) parse the same
// after redaction, in each format: crashes, out-of-memory errors with their
// request and context dump, only the query texts replaced.
func TestRedactRealPostgresLogs(t *testing.T) {
	for _, f := range []string{"postgresql-15-backend-oom-kill-stderr.log", "postgresql-15-out-of-memory-postgresql.log",
		"postgresql-15-out-of-memory-postgresql.csv", "postgresql-15-out-of-memory-postgresql.json"} {
		raw, err := os.ReadFile("../dblog/testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		out, r := PostgresLog(raw, false)
		a, _ := dblog.ParsePostgres(bytes.NewReader(raw))
		b, _ := dblog.ParsePostgres(bytes.NewReader(out))
		if len(a.Crashes) != len(b.Crashes) || len(a.OutOfMemory) != len(b.OutOfMemory) || r.Queries == 0 {
			t.Errorf("%s: %d/%d crashes, %d/%d OOM errors, %+v", f, len(a.Crashes), len(b.Crashes), len(a.OutOfMemory), len(b.OutOfMemory), r)
			continue
		}
		for i, o := range b.OutOfMemory {
			w := a.OutOfMemory[i]
			if o.RequestBytes != w.RequestBytes || o.Context != w.Context || len(o.Contexts) != len(w.Contexts) || o.Query != QueryRedacted && w.Query != "" {
				t.Errorf("%s: OOM error %d: %+v, want like %+v with the query redacted", f, i, o, w)
			}
		}
		for _, c := range a.Crashes {
			if c.Query != "" && bytes.Contains(out, []byte(c.Query)) {
				t.Errorf("%s: the killed query survived", f)
			}
		}
		if strings.Contains(string(out), "generate_series") {
			t.Errorf("%s: query text survived redaction", f)
		}
	}
}
