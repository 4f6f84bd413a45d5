package cli

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbmem/dbmem/internal/archetype"
	"github.com/dbmem/dbmem/internal/archetype/archetypetest"
	"github.com/dbmem/dbmem/internal/exporter"
	"github.com/dbmem/dbmem/internal/finding"
)

// TestOneVerdict is the property "one host state, one verdict": each
// archetype host (generated from its spec into a temporary directory, so
// every path reads the very same files: one snapshot) is judged through
// check --json, report --json, every tick of watch --json (discovery,
// smaps and status ticks), the HTML audit of check and report, and every
// scrape of the exporter, wired as the commands wire them. Every path must
// give the same findings: id, severity, subject, title, evidence, why, fix
// and settings (the exporter's dbmem_finding carries id, severity and
// subject; the audit's headings id, severity, subject, title and fix). Before the
// fix, watch's status ticks forgot the software beside the databases and
// the OOM guard (overcommit.mode flipped to "set vm.overcommit_memory=2"
// beside Redis) and report ranked the OOM victims among the databases
// only.
func TestOneVerdict(t *testing.T) {
	root := archetypetest.Root()
	names, err := archetype.Dirs(root)
	if err != nil || len(names) < 20 {
		t.Fatalf("archetypes under %s: %v (%d)", root, err, len(names))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			host := generatedHost(t, name)
			want := checkFindings(t, host)
			if len(want) == 0 {
				t.Fatal("check found nothing: the property would hold vacuously")
			}
			compareFindings(t, "report --json", want, reportFindings(t, host))
			for i, got := range watchFindings(t, host, 4) {
				compareFindings(t, fmt.Sprintf("watch tick %d", i+1), want, got)
			}
			samePlan(t, host, want)
			for _, cmd := range []string{"check", "report"} {
				if d := cmp.Diff(htmlView(want), auditFindings(t, host, cmd)); d != "" {
					t.Errorf("%s --html differs from check (-check +audit):\n%s", cmd, d)
				}
			}
			for i, got := range exporterFindings(t, host, 3) {
				if d := cmp.Diff(labelsOf(want), got); d != "" {
					t.Errorf("exporter scrape %d: dbmem_finding differs from check (-check +exporter):\n%s", i+1, d)
				}
			}
		})
	}
}

// generatedHost writes an archetype's tree into a temporary directory and
// returns the flags that read it.
func generatedHost(t *testing.T, name string) []string {
	t.Helper()
	tmp := archetypetest.Dir(t, name)
	return []string{"--proc", filepath.Join(tmp, "proc"), "--sys", filepath.Join(tmp, "sys"), "--root", filepath.Join(tmp, "root")}
}

func runJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	code, out, stderr := run(t, args...)
	if code != ExitOK {
		t.Fatalf("dbmem %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("dbmem %s: %v", strings.Join(args, " "), err)
	}
}

func checkFindings(t *testing.T, host []string) []finding.Finding {
	var doc struct{ Findings []finding.Finding }
	runJSON(t, &doc, append(host, "check", "--json", "--history", "")...)
	return doc.Findings
}

func reportFindings(t *testing.T, host []string) []finding.Finding {
	var doc struct{ Findings []finding.Finding }
	runJSON(t, &doc, append(host, "report", "--json")...)
	return doc.Findings
}

// watchFindings runs watch --json for n ticks, a smaps pass on the second,
// and returns each tick's findings.
func watchFindings(t *testing.T, host []string, n int) [][]finding.Finding {
	t.Helper()
	args := append(host, "watch", "--json", "--count", fmt.Sprint(n), "--interval", "10ms", "--smaps-interval", "1h")
	code, out, stderr := run(t, args...)
	if code != ExitOK {
		t.Fatalf("dbmem watch: exit %d: %s", code, stderr)
	}
	var ticks [][]finding.Finding
	modes := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var f struct {
			Mode     string
			Findings []finding.Finding
		}
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("watch frame: %v", err)
		}
		modes[f.Mode] = true
		ticks = append(ticks, f.Findings)
	}
	if len(ticks) != n || !modes["status"] {
		t.Fatalf("watch gave %d frames in modes %v, want %d with status ticks", len(ticks), modes, n)
	}
	return ticks
}

// exporterFindings scrapes an exporter wired as `dbmem exporter` wires it
// n times and returns each scrape's dbmem_finding labels.
func exporterFindings(t *testing.T, host []string, n int) [][]string {
	t.Helper()
	e := &env{proc: host[1], sys: host[3], root: host[5]}
	reg := exporter.Registry(exporter.New(exporter.Options{Sampler: e.sampler()}))
	var out [][]string
	for range n {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, mf := range mfs {
			if mf.GetName() != "dbmem_finding" {
				continue
			}
			for _, m := range mf.GetMetric() {
				l := map[string]string{}
				for _, p := range m.GetLabel() {
					l[p.GetName()] = p.GetValue()
				}
				got = append(got, l["id"]+" "+l["severity"]+" "+l["subject"])
			}
		}
		sort.Strings(got)
		out = append(out, got)
	}
	return out
}

func labelsOf(fs []finding.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.ID+" "+f.Severity.String()+" "+f.Subject)
	}
	sort.Strings(out)
	return out
}

// compareFindings compares whole findings, in check's order.
func compareFindings(t *testing.T, path string, want, got []finding.Finding) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s differs from check (-check +%s):\n%s", path, path, d)
	}
}

// auditLine is a finding as the HTML audit shows it.
var auditLine = regexp.MustCompile(`(?s)<span class="sev [^"]*">([A-Z]+)</span> (.*?)</h3>\n<p><code>([^<]*)</code> on ([^<]*)</p>.*?<span class="label">fix</span> ([^\n]*)</p>`)

// auditFindings writes cmd's HTML audit and reads back its findings.
func auditFindings(t *testing.T, host []string, cmd string) []string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "audit.html")
	args := append(append([]string{}, host...), cmd, "--html", file)
	if cmd == "check" {
		args = append(args, "--history", "")
	}
	code, _, stderr := run(t, args...)
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("dbmem %s --html: exit %d: %s", cmd, code, stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, m := range auditLine.FindAllStringSubmatch(string(b), -1) {
		out = append(out, html.UnescapeString(m[3]+" "+strings.ToLower(m[1])+" "+m[4]+" | "+m[2]+" | "+m[5]))
	}
	sort.Strings(out)
	return out
}

func htmlView(fs []finding.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.ID+" "+f.Severity.String()+" "+f.Subject+" | "+f.Title+" | "+f.Fix)
	}
	sort.Strings(out)
	return out
}

// samePlan: plan sets vm.overcommit_memory=2 exactly when check's
// overcommit.mode advises it (the software beside the databases, a pod,
// Committed_AS or the pools decide both). Both judge it with the huge page
// pools after the plan (advise's poolsPlanned): a pool that starves the
// host (pg16-pool-starves-host) or one the databases still need
// (vm4g-pg13-swap2g) is judged as it will be.
func samePlan(t *testing.T, host []string, fs []finding.Finding) {
	t.Helper()
	var f *finding.Finding
	for i := range fs {
		if fs[i].ID == "overcommit.mode" {
			f = &fs[i]
		}
	}
	if f == nil {
		return // strict already, or the mode was not read
	}
	code, out, stderr := run(t, append(append([]string{}, host...), "plan", "--json")...)
	if code != ExitOK {
		t.Fatalf("dbmem plan --json: exit %d: %s", code, stderr)
	}
	planStrict := regexp.MustCompile(`"name": "vm.overcommit_memory",\s*"value": "2"`).MatchString(out)
	checkStrict := strings.Contains(f.Fix, "set vm.overcommit_memory=2")
	if planStrict != checkStrict {
		t.Errorf("plan sets vm.overcommit_memory=2: %v; check's overcommit.mode advises it: %v (%s)", planStrict, checkStrict, f.Title)
	}
}
