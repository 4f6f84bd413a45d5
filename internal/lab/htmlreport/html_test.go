package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/chart/charttest"
	"github.com/dbmem/dbmem/internal/lab"
	"github.com/dbmem/dbmem/internal/units"
)

// fixture is a result of `dbmem lab --quick --json` recorded on this
// project's test host: kernel 6.18.44, PostgreSQL 15.20, 2 CPUs, 24 GiB.
const fixture = "testdata/quick-kernel-6.18-pg15.json"

func loadFixture(t *testing.T) *lab.Result {
	t.Helper()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var r lab.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// external matches anything that would make the page fetch a resource.
var external = regexp.MustCompile(`(?i)(https?:|ftp:|//[a-z0-9]|<script|<link|<img|<iframe|@import|url\()`)

func TestHTMLIsSelfContained(t *testing.T) {
	r := loadFixture(t)
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "<svg "); n != 4 {
		t.Errorf("%d charts, want 4 (page tables, per connection, TPS, faults)", n)
	}
	if m := external.FindString(page); m != "" {
		t.Errorf("the page refers to something outside itself: %q", m)
	}
	off := r.Modes[0].Cost
	for _, want := range []string{"Page tables vs connections", "Per-connection cost", "pgbench select-only TPS",
		lab.SignedBytes(off.TruthBytes), units.Bytes(off.PredictedBytes),
		fmt.Sprintf("%.0f", r.Bench.Runs[0].TPS), "25 GB page tables", "7.6 MiB", "vm.nr_hugepages", r.Host.KernelRelease} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestHTMLRendersInChromium renders the page in headless Chromium (Debian's
// chromium package; internal/chart/charttest), offline: the DOM Chromium built must hold the four
// charts with their lines and bars, and the screenshot must show them in
// both settings' colours.
func TestHTMLRendersInChromium(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "lab.html")
	var b bytes.Buffer
	if err := Write(&b, loadFixture(t)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := charttest.Run(t, dir, "--dump-dom", "file://"+page)
	for what, re := range map[string]*regexp.Regexp{"charts": regexp.MustCompile(`<svg class="chart"`),
		"lines": regexp.MustCompile(`<polyline `), "bars": regexp.MustCompile(`<rect `)} {
		if n := len(re.FindAllString(dom, -1)); n < 4 {
			t.Errorf("Chromium's DOM has %d %s, want at least 4", n, what)
		}
	}
	img := charttest.Screenshot(t, dir, page, 1200, 2000)
	if bd := img.Bounds(); bd.Dx() != 1200 || bd.Dy() != 2000 {
		t.Errorf("screenshot is %v, want 1200x2000", bd)
	}
	for name, col := range map[string][3]uint32{"off": {0xd9, 0x54, 0x1e}, "on": {0x2a, 0x7a, 0xb9}} {
		if n := charttest.CountColor(img, col); n < 2000 {
			t.Errorf("%d pixels in huge_pages=%s's colour: the charts did not render", n, name)
		}
	}
}
