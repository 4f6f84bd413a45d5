package logredact

import (
	"bytes"
	"strings"
	"testing"
)

// planted is appended to fuzzed logs: whatever precedes it, it must not
// survive redaction.
const planted = "hunter2zz"

func FuzzPostgresLog(f *testing.F) {
	f.Add([]byte(stderrLog), false)
	f.Add([]byte("2026-11-22 21:57:27.056 UTC,,,4129,,x,1,,2026-11-22 21:57:00 UTC,,0,LOG,00000,\"server process (PID 1) was terminated by signal 9: Killed\",\"Failed process was running: SELECT 1\",,,,,,,,\"\"\n"), false)
	f.Add([]byte(`{"timestamp":"2026-11-22 21:57:27.056 UTC","pid":1,"error_severity":"ERROR","message":"out of memory","statement":"SELECT 1"}`+"\n"), true)
	f.Fuzz(func(t *testing.T, text []byte, withQueries bool) {
		if bytes.Contains(text, []byte(planted)) {
			return
		}
		in := append(append([]byte(nil), text...), []byte("\n2026-11-22 21:57:20.001 UTC [1] LOG:  statement: SELECT 1 -- password="+planted+"\n")...)
		out, _ := PostgresLog(in, withQueries)
		if bytes.Contains(out, []byte(planted)) {
			t.Errorf("a password survived: %q", out)
		}
	})
}

// TestLogsKeepNoPasswordsWithQueries: --with-queries keeps query texts
// but not the passwords PostgreSQL accepts in dollar quotes and Unicode
// escapes, nor bind parameters, in every log format.
func TestLogsKeepNoPasswordsWithQueries(t *testing.T) {
	stderr := `2026-11-22 21:57:20.004 UTC [4180] LOG:  statement: ALTER ROLE app PASSWORD $$dollar-pw1$$
2026-11-22 21:57:20.005 UTC [4180] LOG:  statement: ALTER ROLE app PASSWORD $q$dollar-pw2$q$ VALID UNTIL 'infinity'
2026-11-22 21:57:20.006 UTC [4180] LOG:  statement: CREATE ROLE app LOGIN PASSWORD U&'uni\0070w3'
2026-11-22 21:57:20.007 UTC [4180] LOG:  execute <unnamed>: UPDATE users SET pw_hash = $1 WHERE id = $2
2026-11-22 21:57:20.007 UTC [4180] DETAIL:  parameters: $1 = 'param-secret4', $2 = '42'
2026-11-22 21:57:20.008 UTC [4180] ERROR:  value too long for type character varying(8)
2026-11-22 21:57:20.008 UTC [4180] CONTEXT:  unnamed portal with parameters: $1 = 'param-secret5'
2026-11-22 21:57:20.009 UTC [4180] LOG:  statement: ALTER ROLE app PASSWORD $$dollar-cut6
`
	csv := `2026-11-22 21:57:20.007 UTC,"app","shop",4180,"[local]",x,1,"UPDATE",2026-11-22 21:57:00 UTC,3/1,0,LOG,00000,"execute <unnamed>: UPDATE users SET pw_hash = $1","parameters: $1 = 'param-secret7'",,,,,,,,"psql","client backend",,0` + "\n"
	json := `{"timestamp":"2026-11-22 21:57:20.007 UTC","pid":4180,"error_severity":"LOG","message":"execute <unnamed>: UPDATE users SET pw_hash = $1","detail":"parameters: $1 = 'param-secret8'"}` + "\n" +
		`{"timestamp":"2026-11-22 21:57:20.008 UTC","pid":4180,"error_severity":"LOG","message":"statement: ALTER ROLE app PASSWORD $$dollar-pw9$$"}` + "\n"
	for name, text := range map[string]string{"stderr": stderr, "csvlog": csv, "jsonlog": json} {
		out, _ := PostgresLog([]byte(text), true)
		for _, secret := range []string{"dollar-pw1", "dollar-pw2", "uni", "param-secret4", "param-secret5", "dollar-cut6", "param-secret7", "param-secret8", "dollar-pw9"} {
			if bytes.Contains(out, []byte(secret)) {
				t.Errorf("%s: %q survived --with-queries redaction:\n%s", name, secret, out)
			}
		}
		if !bytes.Contains(out, []byte("UPDATE users SET pw_hash = $1")) {
			t.Errorf("%s: --with-queries lost the query text:\n%s", name, out)
		}
		if again, _ := PostgresLog(out, true); !bytes.Equal(again, out) {
			t.Errorf("%s: redacting again changed the log:\n%s\n%s", name, out, again)
		}
	}
}

func TestMySQLLog(t *testing.T) {
	in := "2026-11-22 21:59:53 0 [Note] Starting\nQuery (0x7f12): SELECT secret_col FROM t\nConnection ID (thread ID): 5\n"
	out, r := MySQLLog([]byte(in), false)
	if strings.Contains(string(out), "secret_col") || r.Queries != 1 || !strings.Contains(string(out), "Connection ID") {
		t.Errorf("redacted:\n%s(%+v)", out, r)
	}
	if out, _ := MySQLLog([]byte(in), true); string(out) != in {
		t.Errorf("with queries the log changed:\n%s", out)
	}
}
