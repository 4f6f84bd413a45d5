package audit_test

import (
	"bytes"
	"context"
	"flag"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/measure"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/audit"
	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/xray"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixtureInput is the audit of a recorded host (kernel 6.18, PostgreSQL
// 15.20 with 10 client backends that read 1.1 GiB through 1.3 GiB of
// shared memory in 4 KiB pages), with its findings and its plan.
func fixtureInput(t testing.TB, name string) audit.Input {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "fixtures", name)
	s, err := snapshot.Take(context.Background(), snapshot.Options{
		FS: capture.TreeFS(dir), Live: capture.TreeLive{Dir: dir}, Method: measure.Smaps,
		Now: func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		t.Fatal(err)
	}
	r := advise.Judge(s, advise.Options{})
	in := audit.Input{Command: "dbmem check", Snapshot: s, Findings: r.Findings, Skipped: r.Skipped, Written: s.TakenAt}
	pi, err := plan.Build(context.Background(), plan.Request{Snapshot: s, FS: capture.TreeFS(dir), Budget: plan.BudgetOptions{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	res := plan.Result(pi, s)
	in.Plan = &res
	in.Budgets = plan.ReportBudgets(capture.TreeFS(dir), s, plan.BudgetOptions{Profile: "web"})
	return in
}

func render(t *testing.T, in audit.Input) string {
	t.Helper()
	var b bytes.Buffer
	if err := audit.Write(&b, in); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, d)
	}
}

// The audit of the recorded host holds every section, ranks the page
// tables first (the largest bytes at stake) and refers to nothing outside.
func TestAuditGolden(t *testing.T) {
	page := render(t, fixtureInput(t, "pg15-hugepages-off"))
	golden(t, "pg15-hugepages-off.html", page)
	for _, want := range []string{
		`id="ram"`, `>Where the RAM goes (MemTotal `, `private: client backend`, `page cache`, `huge page pools`, `other programs`,
		`Private cost per process, by role`, `client backend (10)`,
		`Page tables as connections touch the shared memory`, `>4 KiB pages</text>`, `>2 MiB pages</text>`,
		`<code>hugepages.off</code>`, `page tables at max_connections: 40 x`,
		`<td>vm.nr_hugepages</td>`, `huge_pages`,
		`@page { size: A4`, `@media print`, `<h3>Budget</h3>`, `fits`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the audit lacks %q", want)
		}
	}
	first := regexp.MustCompile(`<h3>#1 <span class="sev [a-z-]+">([A-Z]+)</span>`).FindStringSubmatch(page)
	if first == nil || !strings.Contains(page[strings.Index(page, "<h3>#1 "):strings.Index(page, "<h3>#2 ")], "hugepages.off") {
		t.Errorf("the first finding is not hugepages.off (the only one with bytes at stake): %v", first)
	}
	selfContained(t, page)
}

// selfContained fails on anything the page would fetch or run.
func selfContained(t *testing.T, page string) {
	t.Helper()
	for _, m := range regexp.MustCompile(`(?i)<script|<link|<img|<iframe|@import|url\(|src=|https?://`).FindAllString(page, -1) {
		t.Errorf("the audit refers outside itself or runs code: %q", m)
	}
}

// Strings from processes and configurations are text: a hostile title
// or setting never becomes markup.
func TestAuditEscapes(t *testing.T) {
	in := fixtureInput(t, "pg15-hugepages-off")
	in.Snapshot.Host.Hostname = `<script>alert(1)</script>`
	in.Snapshot.Postgres[0].Connection = `"><img src=x onerror=alert(2)>`
	in.Snapshot.Postgres[0].Processes[0].Role = `<b>role</b>`
	in.Findings[0].Evidence[0].Value = `</td><script>x()</script>`
	in.XRay = []xray.Result{{Schema: xray.SchemaVersion, PostmasterPID: 1, DataDir: "/d", Problem: `<script>y()</script>`}}
	page := render(t, in)
	if !strings.Contains(page, "X-ray of the costliest backends") {
		t.Error("no X-ray section")
	}
	for _, bad := range []string{"<script>", "<img", "<b>role</b>"} {
		if strings.Contains(page, bad) {
			t.Errorf("%q reached the page unescaped", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the hostile host name is not shown escaped")
	}
}

// Findings are ranked by bytes at stake, unknown last, then severity.
func TestRanked(t *testing.T) {
	b := func(v uint64) *uint64 { return &v }
	got := audit.Ranked([]finding.Finding{
		{ID: "a", Severity: finding.Critical},
		{ID: "b", Severity: finding.Info, BytesAtStake: b(1 << 20)},
		{ID: "c", Severity: finding.Notice, BytesAtStake: b(1 << 30)},
		{ID: "d", Severity: finding.Warning},
		{ID: "e", Severity: finding.Warning, BytesAtStake: b(1 << 20)},
	})
	var ids []string
	for _, f := range got {
		ids = append(ids, f.ID)
	}
	if d := cmp.Diff([]string{"c", "e", "b", "a", "d"}, ids); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
}

// BenchmarkWrite renders the recorded host's audit.
func BenchmarkWrite(b *testing.B) {
	in := fixtureInput(b, "pg15-hugepages-off")
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := audit.Write(&buf, in); err != nil {
			b.Fatal(err)
		}
	}
}
