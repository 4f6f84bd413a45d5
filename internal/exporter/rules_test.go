package exporter

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

type alertRule struct {
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	For         string            `json:"for"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

func alertRules(t *testing.T) []alertRule {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, "prometheus", "dbmem-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Name  string      `json:"name"`
			Rules []alertRule `json:"rules"`
		} `json:"groups"`
	}
	if err := yaml.UnmarshalStrict(b, &f); err != nil {
		t.Fatal(err)
	}
	var out []alertRule
	for _, g := range f.Groups {
		out = append(out, g.Rules...)
	}
	if len(out) < 10 {
		t.Fatalf("%d rules", len(out))
	}
	return out
}

// The rules' own unit tests: a stock host, huge pages fallen back with many
// connections, a pool starving the host, the exporter down.
func TestAlertRuleUnitTests(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool not found: install the Debian package prometheus (scripts/test does)")
	}
	cmd := exec.Command(promtool, "test", "rules", "dbmem-alerts-test.yml")
	cmd.Dir = filepath.Join(deployDir, "prometheus", "tests")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
}

// The stock-host test case checks every alert of the rules file: none may
// fire there.
func TestStockHostCaseCoversEveryAlert(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(deployDir, "prometheus", "tests", "dbmem-alerts-test.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Tests []struct {
			Name  string `json:"name"`
			Cases []struct {
				Alertname string `json:"alertname"`
				ExpAlerts []any  `json:"exp_alerts"`
			} `json:"alert_rule_test"`
		} `json:"tests"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	silent := map[string]bool{}
	for _, tc := range f.Tests {
		if tc.Name != "stock host" {
			continue
		}
		for _, c := range tc.Cases {
			if len(c.ExpAlerts) == 0 {
				silent[c.Alertname] = true
			}
		}
	}
	for _, r := range alertRules(t) {
		if !silent[r.Alert] {
			t.Errorf("the stock host case does not check that %s stays silent", r.Alert)
		}
	}
}

// idMatcher is a rule's matcher on dbmem_finding's id label.
var idMatcher = regexp.MustCompile(`id(=~|!~|=)"([^"]*)"`)

// matchesID tells whether a rule on dbmem_finding alerts for id, as
// Prometheus matches labels (regular expressions anchored at both ends).
func matchesID(t *testing.T, r alertRule, id string) bool {
	m := idMatcher.FindStringSubmatch(r.Expr)
	if m == nil {
		t.Fatalf("%s: dbmem_finding without an id matcher", r.Alert)
	}
	re := regexp.MustCompile("^(?:" + m[2] + ")$")
	switch m[1] {
	case "=":
		return m[2] == id
	case "=~":
		return re.MatchString(id)
	}
	return !re.MatchString(id)
}

// Every finding id alerts under exactly one rule, and only at warning and
// critical, with the finding's own severity (the rule sets none), and a
// runbook link to its section.
func TestEachFindingAlertsOnce(t *testing.T) {
	ids := documentedFindings(t)
	var rules []alertRule
	for _, r := range alertRules(t) {
		if strings.Contains(r.Expr, "dbmem_finding") {
			rules = append(rules, r)
			if r.Labels["severity"] != "" {
				t.Errorf("%s sets severity %q: it must be the finding's", r.Alert, r.Labels["severity"])
			}
			if !strings.Contains(r.Expr, `severity=~"warning|critical"`) {
				t.Errorf("%s: want severity=~\"warning|critical\" in %s", r.Alert, r.Expr)
			}
			if want := "findings.md#{{ $labels.id }}"; !strings.HasSuffix(r.Annotations["runbook_url"], want) {
				t.Errorf("%s: runbook_url %q, want .../%s", r.Alert, r.Annotations["runbook_url"], want)
			}
		}
	}
	for _, id := range ids {
		var by []string
		for _, r := range rules {
			if matchesID(t, r, id) {
				by = append(by, r.Alert)
			}
		}
		if len(by) != 1 {
			t.Errorf("finding %s alerts under %v, want exactly one rule", id, by)
		}
	}
}

// Every rule links to a section of docs/findings.md that exists.
func TestRunbookLinks(t *testing.T) {
	anchors := docAnchors(t)
	for _, r := range alertRules(t) {
		u := r.Annotations["runbook_url"]
		const base = "https://github.com/dbmem/dbmem/blob/main/docs/findings.md#"
		if !strings.HasPrefix(u, base) {
			t.Errorf("%s: runbook_url %q, want %s...", r.Alert, u, base)
			continue
		}
		if a := strings.TrimPrefix(u, base); a != "{{ $labels.id }}" && !anchors[a] {
			t.Errorf("%s: anchor %q not in docs/findings.md", r.Alert, a)
		}
	}
}

// The finding ids the diagnose engine can produce, read from its source
// (ID: "x", f.ID... = "x", const id = "x", and "sysv." + a rights
// problem), are each documented in docs/findings.md.
func TestFindingIDsDocumented(t *testing.T) {
	anchors := docAnchors(t)
	for _, id := range engineFindingIDs(t) {
		if !anchors[id] {
			t.Errorf("finding %s has no section <a id=%q> in docs/findings.md", id, id)
		}
	}
}

func docAnchors(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "findings.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`<a id="([^"]+)"></a>`).FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = true
	}
	return out
}

// documentedFindings are the anchors of docs/findings.md that are finding
// ids (engine.name), not the exporter's own sections.
func documentedFindings(t *testing.T) []string {
	var out []string
	for a := range docAnchors(t) {
		if strings.Contains(a, ".") {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	if len(out) < 30 {
		t.Fatalf("only %d finding sections in docs/findings.md", len(out))
	}
	return out
}

func engineFindingIDs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "advise", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	pats := []*regexp.Regexp{
		regexp.MustCompile(`ID: +"([a-z0-9_.]+\.[a-z0-9_]+)"`),
		regexp.MustCompile(`f\.ID, f\.\w+ = "([a-z0-9_.]+)"`),
		regexp.MustCompile(`const id = "([a-z0-9_.]+)"`),
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pats {
			for _, m := range p.FindAllStringSubmatch(string(b), -1) {
				seen[m[1]] = true
			}
		}
	}
	b, err := os.ReadFile(filepath.Join("..", "sysv", "rights.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`RightsProblem = "([a-z-]+)"`).FindAllStringSubmatch(string(b), -1) {
		seen["sysv."+m[1]] = true
	}
	var out []string
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	if len(out) < 30 {
		t.Fatalf("found only %d finding ids in internal/advise: %v", len(out), out)
	}
	return out
}
