package htmlreport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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
// chromium package), offline: the DOM Chromium built must hold the four
// charts with their lines and bars, and the screenshot must show them in
// both settings' colours.
func TestHTMLRendersInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not found: apt-get install chromium")
	}
	dir := t.TempDir()
	page, shot := filepath.Join(dir, "lab.html"), filepath.Join(dir, "lab.png")
	var b bytes.Buffer
	if err := Write(&b, loadFixture(t)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := runChromium(t, chromium, dir, "--dump-dom", "file://"+page)
	for what, re := range map[string]*regexp.Regexp{"charts": regexp.MustCompile(`<svg class="chart"`),
		"lines": regexp.MustCompile(`<polyline `), "bars": regexp.MustCompile(`<rect `)} {
		if n := len(re.FindAllString(dom, -1)); n < 4 {
			t.Errorf("Chromium's DOM has %d %s, want at least 4", n, what)
		}
	}
	runChromium(t, chromium, dir, "--screenshot="+shot, "--window-size=1200,2000", "file://"+page)
	if os.Getenv("DBMEM_KEEP_SCREENSHOT") != "" {
		copyFile(t, shot, os.Getenv("DBMEM_KEEP_SCREENSHOT"))
	}
	img := decodePNG(t, shot)
	if bd := img.Bounds(); bd.Dx() != 1200 || bd.Dy() != 2000 {
		t.Errorf("screenshot is %v, want 1200x2000", bd)
	}
	for name, col := range map[string][3]uint32{"off": {0xd9, 0x54, 0x1e}, "on": {0x2a, 0x7a, 0xb9}} {
		if n := countColor(img, col); n < 2000 {
			t.Errorf("%d pixels in huge_pages=%s's colour: the charts did not render", n, name)
		}
	}
}

// runChromium runs headless Chromium with a private profile and no network
// services, and returns what it printed on stdout.
func runChromium(t *testing.T, chromium, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile")}, args...)
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, chromium, all...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.String()
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, b, 0o644)
	}
	if err != nil {
		t.Error(err)
	}
}

// countColor counts pixels within a small distance of c (8-bit RGB).
func countColor(img image.Image, c [3]uint32) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r>>8, c[0]) && near(g>>8, c[1]) && near(bl>>8, c[2]) {
				n++
			}
		}
	}
	return n
}

func near(a, b uint32) bool { return a+8 >= b && b+8 >= a }
