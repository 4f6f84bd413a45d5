package exporter

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
)

var deployDir = filepath.Join("..", "..", "deploy")

// exportedNames are the metric names the exporter can send.
func exportedNames() map[string]bool {
	out := map[string]bool{}
	re := regexp.MustCompile(`fqName: "([^"]+)"`)
	for _, d := range allDescs {
		if m := re.FindStringSubmatch(d.String()); m != nil {
			out[m[1]] = true
		}
	}
	return out
}

// dbmemNames returns the dbmem_* metric names a file mentions.
func dbmemNames(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bdbmem_[a-z0-9_]+`).FindAllString(string(b), -1) {
		seen[m] = true
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// The shipped rules and dashboard must only use metrics the exporter sends.
func TestDeployFilesUseExportedMetrics(t *testing.T) {
	have := exportedNames()
	if len(have) != len(allDescs) {
		t.Fatalf("found %d names in %d descriptions", len(have), len(allDescs))
	}
	for _, f := range []string{"prometheus/dbmem-alerts.yml", "grafana/dbmem-dashboard.json"} {
		names := dbmemNames(t, filepath.Join(deployDir, f))
		if len(names) < 8 {
			t.Errorf("%s mentions only %d dbmem metrics", f, len(names))
		}
		for _, n := range names {
			if !have[n] {
				t.Errorf("%s uses %s, which the exporter does not send", f, n)
			}
		}
	}
}

func TestAlertRulesCheck(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool not found: install the Debian package prometheus (scripts/test does)")
	}
	out, err := exec.Command(promtool, "check", "rules", filepath.Join(deployDir, "prometheus", "dbmem-alerts.yml")).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
}
