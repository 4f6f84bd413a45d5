package logredact

import (
	"bytes"
	"os"
	"testing"

	"github.com/dbmem/dbmem/internal/dblog"
)

// pg_log_backend_memory_contexts writes each context as a LOG message; the
// idents (here the text of a prepared statement) are redacted in every log
// format, and the dump still parses to the same contexts.
func TestRedactLoggedContextIdents(t *testing.T) {
	for _, name := range []string{"postgresql-14-log-memory-contexts.csv", "postgresql-16-log-memory-contexts.log", "postgresql-18-log-memory-contexts.json"} {
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile("../dblog/testdata/" + name)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(in, []byte("prepare q1 as select")) {
				t.Fatal("the fixture holds no query in an ident")
			}
			out, r := PostgresLog(in, false)
			if bytes.Contains(out, []byte("prepare q1")) || bytes.Contains(out, []byte("pg_class_oid_index")) {
				t.Errorf("an ident survived redaction")
			}
			if r.Queries == 0 {
				t.Errorf("no ident counted")
			}
			before, err1 := dblog.ParsePostgres(bytes.NewReader(in))
			after, err2 := dblog.ParsePostgres(bytes.NewReader(out))
			if err1 != nil || err2 != nil || len(before.ContextDumps) != 1 || len(after.ContextDumps) != 1 {
				t.Fatalf("dumps before %d after %d (%v %v)", len(before.ContextDumps), len(after.ContextDumps), err1, err2)
			}
			b, a := before.ContextDumps[0], after.ContextDumps[0]
			if !a.Complete || len(a.Contexts) != len(b.Contexts) {
				t.Fatalf("redacted dump: complete %v, %d contexts of %d", a.Complete, len(a.Contexts), len(b.Contexts))
			}
			for i := range a.Contexts {
				w := b.Contexts[i]
				w.Ident = ""
				if a.Contexts[i] != w {
					t.Errorf("context %d: %+v, want %+v", i, a.Contexts[i], w)
				}
			}
			again, _ := PostgresLog(out, false)
			if !bytes.Equal(again, out) {
				t.Errorf("redacting twice changed the text")
			}
		})
	}
}
