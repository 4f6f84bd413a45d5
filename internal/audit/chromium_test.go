package audit_test

import (
	"bytes"
	"context"
	"github.com/dbmem/dbmem/internal/measure"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/audit"
	"github.com/dbmem/dbmem/internal/chart/charttest"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// liveInput is the audit of this host as `dbmem report --html` writes it,
// kept to a throwaway cluster with three backends that read a table
// through shared_buffers (the host's own servers are left out).
func liveInput(t *testing.T) (audit.Input, int) {
	t.Helper()
	c := pgtest.Start(t, map[string]string{"shared_buffers": "128MB", "max_connections": "30"})
	pgtest.Readers(t, c, 3, 48<<20)
	live := postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Work: true}}
	s, err := snapshot.Take(context.Background(), snapshot.Options{FS: linux.DefaultFS(), Live: live, Method: measure.Smaps})
	if err != nil {
		t.Fatal(err)
	}
	var keep []*postgres.Instance
	for _, in := range s.Postgres {
		if in.PostmasterPID == c.PID {
			keep = append(keep, in)
		}
	}
	if len(keep) != 1 {
		t.Fatalf("the snapshot lacks the test cluster (postmaster %d); gaps %v", c.PID, s.Gaps)
	}
	s.Postgres, s.MySQL = keep, nil
	r := advise.Judge(s, advise.Options{})
	in := audit.Input{Command: "dbmem report", Snapshot: s, Findings: r.Findings, Skipped: r.Skipped,
		Budgets: plan.ReportBudgets(linux.DefaultFS(), s, plan.BudgetOptions{Profile: "web"})}
	pi, err := plan.Build(context.Background(), plan.Request{Snapshot: s, Budget: plan.BudgetOptions{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	res := plan.Result(pi, s)
	in.Plan = &res
	return in, c.Port
}

// The audit of a real host renders in headless Chromium, offline: the DOM
// holds its charts and sections, the console stays silent, the charts
// are drawn in the palette's colours at desktop and A4 widths, and it
// prints on A4 pages.
func TestAuditInChromium(t *testing.T) {
	in, port := liveInput(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "audit.html")
	var b bytes.Buffer
	if err := audit.Write(&b, in); err != nil {
		t.Fatal(err)
	}
	selfContained(t, b.String())
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := charttest.Run(t, dir, "--dump-dom", "file://"+page)
	for _, want := range []string{":" + strconv.Itoa(port) + " (", "Where the RAM goes (MemTotal", "private: client backend", "client backend (",
		"Page tables as connections touch the shared memory", "The plan's settings", "vm.nr_hugepages", "Limit "} {
		if !strings.Contains(dom, want) {
			t.Errorf("Chromium's DOM lacks %q", want)
		}
	}
	if n := strings.Count(dom, `<svg class="chart"`); n < 3 {
		t.Errorf("%d charts in the DOM, want 3 (RAM, roles, page tables)", n)
	}
	if msgs := charttest.Console(t, dir, page); len(msgs) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(msgs, "\n"))
	}
	for _, width := range []int{1280, 794} {
		img := charttest.Screenshot(t, dir, page, width, 3600)
		lookAt(t, width, img)
	}
	pdf := charttest.PrintPDF(t, dir, page)
	boxes := regexp.MustCompile(`/MediaBox \[0 0 ([0-9.]+) ([0-9.]+)\]`).FindAllSubmatch(pdf, -1)
	if len(boxes) == 0 {
		t.Fatal("the PDF has no page")
	}
	for _, m := range boxes {
		w, _ := strconv.ParseFloat(string(m[1]), 64)
		h, _ := strconv.ParseFloat(string(m[2]), 64)
		if w < 593 || w > 597 || h < 840 || h > 844 {
			t.Errorf("a printed page is %.0f x %.0f pt, want A4 (595 x 842)", w, h)
		}
	}
}

// lookAt checks a screenshot: the bars of the RAM chart (shared memory,
// private memory, page cache, other programs), the roles' boxes and the
// projection's line are drawn in their colours, and the page is not
// blank.
func lookAt(t *testing.T, width int, img image.Image) {
	t.Helper()
	for name, c := range map[string]string{"shared memory": audit.Blue, "private memory": audit.Green, "page cache": audit.SkyBlue,
		"other programs": audit.Orange, "4 KiB page tables": audit.Vermilion, "free": audit.Yellow} {
		if n := charttest.CountColor(img, rgb(c)); n < 40 {
			t.Errorf("%d px wide: %d pixels of %s (%s): not drawn", width, n, name, c)
		}
	}
	bounds := img.Bounds()
	ink := 0
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			if r, g, b, _ := img.At(x, y).RGBA(); r>>8 < 0xf0 || g>>8 < 0xf0 || b>>8 < 0xf0 {
				ink++
			}
		}
	}
	if share := float64(ink) / float64(bounds.Dx()*bounds.Dy()); share < 0.03 {
		t.Errorf("%d px wide: %.1f%% of the page is drawn: blank", width, share*100)
	}
}

func rgb(hex string) [3]uint32 {
	v, _ := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	return [3]uint32{uint32(v >> 16 & 0xff), uint32(v >> 8 & 0xff), uint32(v & 0xff)}
}

// The console check sees what a broken page logs, and the audit's policy
// refuses a script even if one slipped in: so a silent console means
// something.
func TestConsoleCheckSees(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.html")
	os.WriteFile(bad, []byte(`<!DOCTYPE html><html><body><script>console.error("boom")</script></body></html>`), 0o644)
	if msgs := charttest.Console(t, dir, bad); len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), "boom") {
		t.Errorf("console.error not seen: %q", msgs)
	}
	var b bytes.Buffer
	if err := audit.Write(&b, fixtureInput(t, "pg15-hugepages-off")); err != nil {
		t.Fatal(err)
	}
	injected := strings.Replace(b.String(), "</body>", `<script>console.error("ran")</script></body>`, 1)
	page := filepath.Join(dir, "injected.html")
	os.WriteFile(page, []byte(injected), 0o644)
	msgs := strings.Join(charttest.Console(t, dir, page), "\n")
	if strings.Contains(msgs, `"ran"`) || !strings.Contains(msgs, "Content Security Policy") {
		t.Errorf("an injected script was not refused by the page's policy: %q", msgs)
	}
}
