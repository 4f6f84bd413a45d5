package dblog

import (
	"strings"
	"testing"
)

// Lines as PostgreSQL 15 writes them with log_temp_files = 0 (Debian's
// log_line_prefix '%m [%p] %q%u@%d '), role names with a space, an "@"
// and a quote, and a background process's line (no user: %q).
const stderrTempLog = `2026-03-01 10:00:00.123 UTC [1200] LOG:  checkpoint starting: time
2026-03-01 10:00:01.001 UTC [1234] report user@sales LOG:  temporary file: path "base/pgsql_tmp/pgsql_tmp1234.0", size 140000000
2026-03-01 10:00:01.001 UTC [1234] report user@sales STATEMENT:  SELECT * FROM big ORDER BY 1
2026-03-01 10:00:02.500 UTC [1240] a@b@c@db LOG:  temporary file: path "base/pgsql_tmp/pgsql_tmp1240.0", size 8192
2026-03-01 10:00:03.000 UTC [1250] o'brien@db LOG:  temporary file: path "base/pgsql_tmp/pgsql_tmp1250.3", size 4096
2026-03-01 10:00:04.000 UTC [1260] LOG:  temporary file: path "base/pgsql_tmp/pgsql_tmp1260.0", size 100
`

func TestParseTempFilesStderrReadsRolesFromThePrefix(t *testing.T) {
	m := NewPrefixMatcher("%m [%p] %q%u@%d ", []string{"report user", "a@b", "o'brien", "report"})
	got, err := Options{}.ParseTempFiles(strings.NewReader(stderrTempLog), m)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		pid   int
		user  string
		bytes uint64
	}{{1234, "report user", 140000000}, {1240, "a@b", 8192}, {1250, "o'brien", 4096}, {1260, "", 100}}
	if len(got.Files) != len(want) {
		t.Fatalf("got %d files, want %d: %+v", len(got.Files), len(want), got.Files)
	}
	for i, w := range want {
		f := got.Files[i]
		if f.PID != w.pid || f.User != w.user || f.Bytes != w.bytes {
			t.Errorf("file %d = pid %d user %q %d B, want pid %d user %q %d B", i, f.PID, f.User, f.Bytes, w.pid, w.user, w.bytes)
		}
	}
	if got.First.IsZero() || got.Last.Sub(got.First).Milliseconds() != 3877 {
		t.Errorf("span %v - %v, want 3.877 s", got.First, got.Last)
	}
}

func TestPrefixMatcherWithoutUserIsNil(t *testing.T) {
	if m := NewPrefixMatcher("%m [%p] ", nil); m != nil {
		t.Fatal("a prefix without %u must give no matcher")
	}
	if u := (*PrefixMatcher)(nil).User("x"); u != "" {
		t.Fatalf("nil matcher gave %q", u)
	}
}

func TestPrefixMatcherWithoutRolesTakesTheShortest(t *testing.T) {
	m := NewPrefixMatcher("%t [%p]: user=%u,db=%d,app=%a,client=%h ", nil)
	if u := m.User("2026-03-01 10:00:01 UTC [42]: user=alice,db=x,app=psql,client=[local] "); u != "alice" {
		t.Fatalf("user %q, want alice", u)
	}
}

const csvTempLog = `2026-03-01 10:00:01.001 UTC,"report user","sales",1234,"[local]",65e1a,1,"SELECT",2026-03-01 09:59:00 UTC,3/7,0,LOG,00000,"temporary file: path ""base/pgsql_tmp/pgsql_tmp1234.0"", size 140000000",,,,,,"SELECT 1",,,"psql","client backend",,0
`

const jsonTempLog = `{"timestamp":"2026-03-01 10:00:01.001 UTC","user":"ünïcode \"role\"","dbname":"sales","pid":1234,"error_severity":"LOG","message":"temporary file: path \"base/pgsql_tmp/pgsql_tmp1234.0\", size 2048"}
`

func TestParseTempFilesCSVAndJSONNameTheUser(t *testing.T) {
	for _, c := range []struct{ format, log, user string }{{"csv", csvTempLog, "report user"}, {"json", jsonTempLog, `ünïcode "role"`}} {
		got, err := Options{}.ParseTempFiles(strings.NewReader(c.log), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Format != c.format || len(got.Files) != 1 || got.Files[0].User != c.user || got.Files[0].PID != 1234 {
			t.Errorf("%s: %+v", c.format, got)
		}
	}
}

func FuzzParseTempFiles(f *testing.F) {
	for _, s := range []string{stderrTempLog, csvTempLog, jsonTempLog, "", "LOG:  temporary file: path \"\", size 99999999999999999999999"} {
		f.Add(s, "%m [%p] %q%u@%d ")
	}
	f.Fuzz(func(t *testing.T, log, prefix string) {
		m := NewPrefixMatcher(prefix, []string{"a", "b c"})
		got, _ := Options{}.ParseTempFiles(strings.NewReader(log), m)
		if lines := strings.Count(log, "\n") + 1; len(got.Files) > lines {
			t.Fatalf("%d temporary files from %d lines", len(got.Files), lines)
		}
	})
}
