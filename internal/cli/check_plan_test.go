package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckExitCodes(t *testing.T) {
	fx := fixtureArgs("pg15-hugepages-off") // kernel 6.18, PostgreSQL 15.20, huge_pages=off
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"check"}, ExitOK},
		{[]string{"check", "--exit-code", "warning"}, ExitFindings}, // the OOM ranking is a warning
		{[]string{"check", "--exit-code", "critical"}, ExitOK},
		{[]string{"check", "--exit-code", "loud"}, ExitUsage},
		{[]string{"check", "--min-severity", "nope"}, ExitUsage},
	} {
		code, out, stderr := run(t, append(fx, c.args...)...)
		if code != c.code {
			t.Errorf("dbmem %v: exit %d, want %d (%s)", c.args, code, c.code, stderr)
		}
		if c.code != ExitUsage && !strings.Contains(out, "FINDINGS") {
			t.Errorf("dbmem %v: no FINDINGS section:\n%s", c.args, out)
		}
	}
}

func TestCheckJSONOnFixture(t *testing.T) {
	code, out, stderr := run(t, append(fixtureArgs("pg15-hugepages-off"), "--json", "check", "--min-severity", "notice")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Schema   string `json:"schema"`
		Findings []struct {
			ID       string `json:"id"`
			Severity string `json:"severity"`
			Evidence []struct{ Name, Value, Source string }
			Why, Fix string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, f := range doc.Findings {
		ids[f.ID] = f.Severity
		if f.Severity == "info" || len(f.Evidence) == 0 || f.Why == "" || f.Fix == "" {
			t.Errorf("finding %+v", f)
		}
	}
	if doc.Schema != "dbmem.check/v2" || ids["hugepages.off"] != "notice" || ids["oom.ranking"] != "warning" {
		t.Errorf("schema %s, findings %v", doc.Schema, ids)
	}
}

func TestPlanWhatIfSeed001(t *testing.T) {
	args := []string{"plan", "--ram", "5016896KiB", "--swap", "974844KiB", "--shared-buffers", "1GiB", "--max-connections", "500"}
	code, out, stderr := run(t, args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"vm.overcommit_ratio  48", "vm.nr_hugepages  558", "huge_pages  on", "OOMScoreAdjust"} {
		if !strings.Contains(strings.Join(strings.Fields(out), "  "), want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	code, out, stderr = run(t, append(args, "--format", "sysctl")...)
	if code != ExitOK || !strings.Contains(out, "vm.nr_hugepages = 558") || !strings.Contains(out, "vm.overcommit_ratio = 48") {
		t.Errorf("--format sysctl: exit %d %s\n%s", code, stderr, out)
	}
}

func TestPlanUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"plan", "--swap", "1GiB"},
		{"plan", "--ram", "lots"},
		{"plan", "--ram", "4GiB", "--swap", "8GiB"},
		{"plan", "--page-size", "4MiB"},
		{"plan", "--reserve", "120"},
		{"plan", "--ram", "4GiB", "--set", "noequals"},
		{"plan", "--ram", "4GiB", "--data-dir", "/tmp"},
		{"plan", "--ram", "4GiB", "--format", "nonsense"},
	} {
		if code, _, stderr := run(t, args...); code != ExitUsage {
			t.Errorf("dbmem %v: exit %d, want %d (%s)", args, code, ExitUsage, stderr)
		}
	}
}

// TestPlanKubernetesOnlyWhenAsked: the recorded host is a VM, not a pod:
// its plan has no pod resources unless --format kubernetes asks for them.
func TestPlanKubernetesOnlyWhenAsked(t *testing.T) {
	fx := fixtureArgs("pg15-hugepages-off")
	for _, args := range [][]string{{"plan"}, {"--json", "plan"}} {
		code, out, stderr := run(t, append(fx, args...)...)
		if code != ExitOK || !strings.Contains(out, "vm.nr_hugepages") {
			t.Fatalf("dbmem %v: exit %d: %s\n%s", args, code, stderr, out)
		}
		if strings.Contains(out, "kubernetes") || strings.Contains(out, "hugepages-2Mi") {
			t.Errorf("dbmem %v on a bare host shows Kubernetes settings:\n%s", args, out)
		}
	}
	code, out, stderr := run(t, append(fx, "plan", "--format", "kubernetes")...)
	if code != ExitOK || !strings.Contains(out, "hugepages-2Mi: ") || !strings.Contains(out, "kind: Pod") {
		t.Errorf("--format kubernetes: exit %d %s\n%s", code, stderr, out)
	}
}
