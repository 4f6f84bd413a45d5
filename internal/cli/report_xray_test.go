package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

// report --contexts-pid X-rays a backend of a live cluster, in text and
// JSON; --contexts N picks the client backends of the instances dbmem is
// connected to (--pg-port keeps it to the test cluster).
func TestReportContextsLive(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"jit": "off", "shared_buffers": "32MB"})
	var ddl strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&ddl, "CREATE TABLE t%d (a int PRIMARY KEY);", i)
	}
	pgtest.Exec(t, c, ddl.String())
	conn := pgtest.Connect(t, c)
	if _, err := conn.Exec(context.Background(), `DO $$ BEGIN FOR i IN 1..300 LOOP EXECUTE format('SELECT * FROM t%s', i); END LOOP; END $$`); err != nil {
		t.Fatal(err)
	}
	pid := int(conn.PgConn().PID())
	port := fmt.Sprint(c.Port)
	code, out, stderr := run(t, "report", "--pg-port", port, "--top", "1", "--contexts-pid", fmt.Sprint(pid), "--no-color")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"MEMORY CONTEXTS (X-ray", "writes one LOG line per memory context", fmt.Sprintf("pid %d  client backend", pid),
		"catalog caches", "CacheMemoryContext", "= private cost", "Reconcile: the groups count the contexts' used bytes", "Largest: catalog caches"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out[strings.Index(out, "MEMORY CONTEXTS"):])
		}
	}
	code, out, stderr = run(t, "report", "--pg-port", port, "--contexts", "1", "--json")
	if code != ExitOK {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	var doc struct {
		XRay []struct {
			Schema   string `json:"schema"`
			Backends []struct {
				PID       int `json:"pid"`
				Breakdown struct {
					Dominant string `json:"dominant"`
				} `json:"breakdown"`
			} `json:"backends"`
		} `json:"xray"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.XRay) != 1 || doc.XRay[0].Schema != "dbmem.xray/v1" || len(doc.XRay[0].Backends) != 1 ||
		doc.XRay[0].Backends[0].PID != pid || doc.XRay[0].Backends[0].Breakdown.Dominant != "catalog" {
		t.Errorf("JSON X-ray: %+v", doc.XRay)
	}
}

func TestReportContextsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--contexts", "-1"}, "--contexts -1: want a count of at least 1"},
		{[]string{"report", "--contexts", "2", "--no-connect"}, "need a connection to the running server"},
		{append(fixtureArgs("pg15-hugepages-on"), "report", "--contexts-pid", "5"), "need a connection"},
		{[]string{"report", "--no-color", "--contexts-pid", "1"}, "--contexts-pid 1: not a process of any PostgreSQL instance"},
	} {
		code, _, stderr := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
}
