package htmlreport

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/chart/charttest"
	"github.com/dbmem/dbmem/internal/lab"
)

// budgetFixture is a result of `dbmem lab budget --quick --json` recorded
// on this project's test host: kernel 6.18.44, PostgreSQL 15.20, cgroup v1.
const budgetFixture = "testdata/budget-quick-kernel-6.18-pg15.json"

func loadBudget(t *testing.T) *lab.BudgetResult {
	t.Helper()
	b, err := os.ReadFile(budgetFixture)
	if err != nil {
		t.Fatal(err)
	}
	var r lab.BudgetResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func TestBudgetHTMLIsSelfContained(t *testing.T) {
	r := loadBudget(t)
	var b bytes.Buffer
	if err := WriteBudget(&b, r); err != nil {
		t.Fatal(err)
	}
	page := strings.ReplaceAll(b.String(), "&#43;", "+") // html/template escapes "+" in text
	if n := strings.Count(page, "<svg "); n != 2 {
		t.Errorf("%d charts, want 2 (private memory, temp bytes)", n)
	}
	if m := external.FindString(page); m != "" {
		t.Errorf("the page refers to something outside itself: %q", m)
	}
	d := r.Run(lab.ConfigDBMem)
	want := []string{"PASS", lab.ConfigSmall, lab.ConfigDBMem, lab.ConfigPGTune, "ALTER ROLE report SET work_mem = " + d.RoleSettings[0].Value,
		"peak private (Pss_Anon+VmPTE)", "temp bytes", "OOM kills", r.Budget.ConcurrencySource, budget.PGTuneSource}
	for _, c := range r.Checks {
		want = append(want, c.Detail)
	}
	for _, w := range want {
		if !strings.Contains(page, htmlEscape(w)) {
			t.Errorf("the page lacks %q", w)
		}
	}
}

// TestBudgetHTMLRendersInChromium renders the page in headless Chromium,
// offline: both charts in the DOM, dbmem's and PGTune's colours on screen.
func TestBudgetHTMLRendersInChromium(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "budget.html")
	var b bytes.Buffer
	if err := WriteBudget(&b, loadBudget(t)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := charttest.Run(t, dir, "--dump-dom", "file://"+page)
	if n := len(regexp.MustCompile(`<svg class="chart"`).FindAllString(dom, -1)); n != 2 {
		t.Errorf("Chromium's DOM has %d charts, want 2", n)
	}
	img := charttest.Screenshot(t, dir, page, 1200, 1600)
	for name, col := range map[string][3]uint32{lab.ConfigDBMem: {0x2a, 0x7a, 0xb9}, lab.ConfigPGTune: {0xd9, 0x54, 0x1e}} {
		if n := charttest.CountColor(img, col); n < 300 {
			t.Errorf("%d pixels in the %s run's colour: the charts did not render", n, name)
		}
	}
}
