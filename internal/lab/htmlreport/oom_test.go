package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/chart/charttest"
	"github.com/dbmem/dbmem/internal/lab"
)

// oomFixture is a result of `dbmem lab oom --quick --json` recorded on
// this project's test host: kernel 6.18.44, PostgreSQL 15.20, cgroup v1.
const oomFixture = "testdata/oom-quick-kernel-6.18-pg15.json"

func loadOOM(t *testing.T) *lab.OOMResult {
	t.Helper()
	b, err := os.ReadFile(oomFixture)
	if err != nil {
		t.Fatal(err)
	}
	var r lab.OOMResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func TestOOMHTMLIsSelfContained(t *testing.T) {
	r := loadOOM(t)
	var b bytes.Buffer
	if err := WriteOOM(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "<svg "); n != 2 {
		t.Errorf("%d charts, want 2 (TPS, the cgroup's memory)", n)
	}
	if m := external.FindString(page); m != "" {
		t.Errorf("the page refers to something outside itself: %q", m)
	}
	for _, want := range []string{"EMULATED", "killed by the OOM killer", "out of memory", "terminating any other active server processes",
		"536870912", "Memory cgroup out of memory: Killed process " + fmt.Sprint(r.Unprotected.QueryPID), r.Protection.Differs[1][:60], "Next to the field report", "dbmem postmortem"} {
		if !strings.Contains(page, htmlEscape(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func htmlEscape(s string) string { return template.HTMLEscapeString(s) }

// TestOOMHTMLRendersInChromium renders the page in headless Chromium,
// offline: both charts must be in the DOM and both runs' colours on screen.
func TestOOMHTMLRendersInChromium(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "oom.html")
	var b bytes.Buffer
	if err := WriteOOM(&b, loadOOM(t)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := charttest.Run(t, dir, "--dump-dom", "file://"+page)
	if n := len(regexp.MustCompile(`<svg class="chart"`).FindAllString(dom, -1)); n != 2 {
		t.Errorf("Chromium's DOM has %d charts, want 2", n)
	}
	img := charttest.Screenshot(t, dir, page, 1200, 1400)
	for name, col := range map[string][3]uint32{"unprotected": {0xd9, 0x54, 0x1e}, "protected": {0x2a, 0x7a, 0xb9}} {
		if n := charttest.CountColor(img, col); n < 1000 {
			t.Errorf("%d pixels in the %s run's colour: the charts did not render", n, name)
		}
	}
}
