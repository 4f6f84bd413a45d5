package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// labFixture is a `dbmem lab --quick --json` result recorded on the test host
// (kernel 6.18, PostgreSQL 15).
var labFixture = filepath.Join("..", "lab", "htmlreport", "testdata", "quick-kernel-6.18-pg15.json")

func TestLabFromSavedResult(t *testing.T) {
	html := filepath.Join(t.TempDir(), "lab.html")
	code, out, stderr := run(t, "lab", "--from", labFixture, "--html", html)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"MemAvailable fall (ground truth)", "huge_pages=off", "dbmem: sum of Pss_Anon + VmPTE", "Field reports:"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(html)
	if err != nil || !strings.Contains(string(b), "<svg ") {
		t.Errorf("no HTML report with charts at %s: %v", html, err)
	}
	code, out, _ = run(t, "lab", "--from", labFixture, "--json")
	if code != ExitOK || !strings.Contains(out, `"schema": "dbmem.lab/v1"`) {
		t.Errorf("--json: exit %d, %.200s", code, out)
	}
}

func TestLabUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"lab", "--shared-buffers", "lots"}, {"lab", "extra"}} {
		if code, _, stderr := run(t, args...); code != ExitUsage {
			t.Errorf("dbmem %v: exit %d (%s), want %d", args, code, stderr, ExitUsage)
		}
	}
	if code, _, stderr := run(t, "lab", "--from", "/nonexistent.json"); code != ExitError || !strings.Contains(stderr, "nonexistent") {
		t.Errorf("missing --from file: exit %d, %s", code, stderr)
	}
}
