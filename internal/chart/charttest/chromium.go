// Package charttest renders a page in headless Chromium (Debian's chromium
// package) for tests of the pages that hold charts: the DOM Chromium
// built, a screenshot, and a count of the pixels of a colour.
package charttest

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Chromium returns the path of chromium, failing the test without it.
func Chromium(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium not found: install the Debian package chromium (scripts/test does)")
	}
	return p
}

// Run runs headless Chromium offline, with a private profile in dir and
// no network services, and returns what it printed on stdout.
func Run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, _ := RunLogged(t, dir, args...)
	return out
}

// RunLogged is Run that also returns what Chromium wrote on stderr.
func RunLogged(t *testing.T, dir string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile")}, args...)
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, Chromium(t), all...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String()
}

// Console loads page with Chromium's logging on and returns the page's
// console messages (errors, refused loads, uncaught exceptions).
func Console(t *testing.T, dir, page string) []string {
	t.Helper()
	_, log := RunLogged(t, dir, "--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+page)
	var msgs []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, ":CONSOLE") {
			msgs = append(msgs, l)
		}
	}
	return msgs
}

// PrintPDF prints page to a PDF, without header and footer, and returns
// its bytes.
func PrintPDF(t *testing.T, dir, page string) []byte {
	t.Helper()
	pdf := filepath.Join(dir, "page.pdf")
	Run(t, dir, "--no-pdf-header-footer", "--print-to-pdf="+pdf, "file://"+page)
	b, err := os.ReadFile(pdf)
	if err != nil {
		t.Fatalf("no PDF: %v", err)
	}
	return b
}

// Screenshot renders page at width x height and returns the image.
func Screenshot(t *testing.T, dir, page string, width, height int) image.Image {
	t.Helper()
	shot := filepath.Join(dir, "shot.png")
	Run(t, dir, "--screenshot="+shot, "--window-size="+itoa(width)+","+itoa(height), "file://"+page)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if keep := os.Getenv("DBMEM_KEEP_SCREENSHOT"); keep != "" {
		b, _ := os.ReadFile(shot)
		os.WriteFile(keep, b, 0o644)
	}
	return img
}

// CountColor counts pixels within 8 of c in each 8-bit channel.
func CountColor(img image.Image, c [3]uint32) int {
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

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
