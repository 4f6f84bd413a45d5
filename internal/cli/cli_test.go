package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func fixtureArgs(name string) []string {
	dir := filepath.Join("..", "..", "testdata", "fixtures", name)
	return []string{"--proc", filepath.Join(dir, "proc"), "--sys", filepath.Join(dir, "sys"), "--root", filepath.Join(dir, "root")}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"report", "--no-such-flag"}, {"report", "extra"}, {"--top"}} {
		code, _, stderr := run(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, "dbmem:") {
			t.Errorf("dbmem %v: exit %d, stderr %q; want exit %d with a message", args, code, stderr, ExitUsage)
		}
	}
	code, _, stderr := run(t, "no-such-command")
	if code != ExitUsage {
		t.Errorf("unknown command: exit %d (%s)", code, stderr)
	}
}

func TestReportOnFixture(t *testing.T) {
	code, out, stderr := run(t, append(fixtureArgs("pg15-hugepages-on"), "report", "--top", "2")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"HOST", "POSTGRESQL 15", `"/anon_hugepage (deleted)" in 2 MiB huge pages`,
		"not connected", "8 more client backends"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour codes written to a non-terminal")
	}
}

func TestReportJSONOnFixture(t *testing.T) {
	code, out, stderr := run(t, append(fixtureArgs("pg15-hugepages-off"), "report", "--json")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Schema   string `json:"schema"`
		Snapshot struct {
			Postgres []struct {
				Processes []json.RawMessage `json:"processes"`
			} `json:"postgres"`
		} `json:"snapshot"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != "dbmem.report/v2" || len(doc.Snapshot.Postgres) != 1 || len(doc.Snapshot.Postgres[0].Processes) != 16 {
		t.Errorf("json: schema %q, %d instances", doc.Schema, len(doc.Snapshot.Postgres))
	}
}

func TestReportMissingProc(t *testing.T) {
	code, _, stderr := run(t, "--proc", "/nonexistent/proc", "report")
	if code != ExitError || !strings.Contains(stderr, "/nonexistent/proc/meminfo") {
		t.Errorf("exit %d, stderr %q: want an error naming the file", code, stderr)
	}
}

func TestReportLive(t *testing.T) {
	code, out, stderr := run(t, "report", "--fast")
	if code != ExitOK || !strings.Contains(out, "HOST") {
		t.Errorf("live report: exit %d, %s", code, stderr)
	}
}
