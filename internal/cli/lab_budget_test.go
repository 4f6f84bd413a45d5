package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/lab"
)

// labBudgetFixture is a `dbmem lab budget --quick --json` result recorded
// on the test host (kernel 6.18, PostgreSQL 15, cgroup v1).
var labBudgetFixture = filepath.Join("..", "lab", "htmlreport", "testdata", "budget-quick-kernel-6.18-pg15.json")

func TestLabBudgetFromSavedResult(t *testing.T) {
	html := filepath.Join(t.TempDir(), "budget.html")
	code, out, stderr := run(t, "lab", "budget", "--from", labBudgetFixture, "--html", html)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"uniform-small", "dbmem", "pgtune", "peak private (Pss_Anon+VmPTE)", "temp bytes", "OOM kills",
		"PASS  dbmem: no OOM kill", "PASS  dbmem: peak private memory within its budget", "PASS  dbmem: fewer temp bytes than uniform-small",
		"dbmem's budget (measured during uniform-small)", "restored"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "<svg ") {
		t.Errorf("no HTML report with charts at %s: %v", html, err)
	}
	code, out, _ = run(t, "lab", "budget", "--from", labBudgetFixture, "--json")
	if code != ExitOK || !strings.Contains(out, `"schema": "`+lab.BudgetSchema+`"`) || !strings.Contains(out, `"configs": [`) {
		t.Errorf("--json: exit %d, %.300s", code, out)
	}
}

// TestLabBudgetFailedCheckExits3: a result whose dbmem run wrote more temp
// bytes than uniform-small says FAIL and exits 3.
func TestLabBudgetFailedCheckExits3(t *testing.T) {
	b, err := os.ReadFile(labBudgetFixture)
	if err != nil {
		t.Fatal(err)
	}
	var r lab.BudgetResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	more := *r.Run(lab.ConfigSmall).TempBytes + 1
	r.Run(lab.ConfigDBMem).TempBytes = &more // the checks are computed again from the figures
	path := filepath.Join(t.TempDir(), "failed.json")
	b, _ = json.Marshal(&r)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, "lab", "budget", "--from", path)
	if code != ExitFindings || !strings.Contains(out, "FAIL  dbmem: fewer temp bytes than uniform-small") || !strings.Contains(stderr, "a check failed") {
		t.Errorf("exit %d, stderr %q, out:\n%s", code, stderr, out)
	}
}

func TestLabBudgetUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"lab", "budget", "--limit", "lots"}, {"lab", "budget", "extra"},
		{"lab", "budget", "--clients", "500"}, {"lab", "budget", "--rows", "10"}, {"lab", "budget", "--limit", "256MB"}} {
		if code, _, stderr := run(t, args...); code != ExitUsage {
			t.Errorf("dbmem %v: exit %d (%s), want %d", args, code, stderr, ExitUsage)
		}
	}
	code, _, stderr := run(t, "lab", "budget", "--from", labOOMFixture)
	if code != ExitError || !strings.Contains(stderr, lab.BudgetSchema) {
		t.Errorf("--from an OOM result: exit %d, %s; want the schema named", code, stderr)
	}
}
