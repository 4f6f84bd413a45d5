package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// labOOMFixture is a `dbmem lab oom --quick --json` result recorded on the
// test host (kernel 6.18, PostgreSQL 15, cgroup v1).
var labOOMFixture = filepath.Join("..", "lab", "htmlreport", "testdata", "oom-quick-kernel-6.18-pg15.json")

func TestLabOOMFromSavedResult(t *testing.T) {
	html := filepath.Join(t.TempDir(), "oom.html")
	code, out, stderr := run(t, "lab", "oom", "--from", labOOMFixture, "--html", html)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"killed by the OOM killer", "out of memory", "sessions lost", "TPS during",
		"terminating any other active server processes", "all server processes terminated; reinitializing",
		"dbmem postmortem: explains the kill", "EMULATED", "Next to the field report", "restored"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(html)
	if err != nil || !strings.Contains(string(b), "<svg ") || !strings.Contains(string(b), "EMULATED") {
		t.Errorf("no HTML report with charts that says EMULATED at %s: %v", html, err)
	}
	code, out, _ = run(t, "lab", "oom", "--from", labOOMFixture, "--json")
	if code != ExitOK || !strings.Contains(out, `"schema": "dbmem.lab-oom/v1"`) || !strings.Contains(out, `"real": false`) {
		t.Errorf("--json: exit %d, %.300s", code, out)
	}
}

func TestLabOOMUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"lab", "oom", "--limit", "lots"}, {"lab", "oom", "extra"}, {"lab", "oom", "--headroom", "x"}} {
		if code, _, stderr := run(t, args...); code != ExitUsage {
			t.Errorf("dbmem %v: exit %d (%s), want %d", args, code, stderr, ExitUsage)
		}
	}
	code, _, stderr := run(t, "lab", "oom", "--from", labFixture)
	if code != ExitError || !strings.Contains(stderr, "dbmem.lab-oom/v1") {
		t.Errorf("--from a huge pages result: exit %d, %s; want the schema named", code, stderr)
	}
	code, _, stderr = run(t, "lab", "--from", labOOMFixture)
	if code != ExitError || !strings.Contains(stderr, "dbmem.lab/v1") {
		t.Errorf("lab --from an OOM result: exit %d, %s; want the schema named", code, stderr)
	}
}
