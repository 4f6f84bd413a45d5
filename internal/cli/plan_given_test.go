package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// partialBundle captures the recorded PostgreSQL 15 host with the given
// meminfo lines removed, as a bundle.
func partialBundle(t *testing.T, drop ...string) string {
	t.Helper()
	tree := t.TempDir()
	src := filepath.Join("..", "..", "testdata", "fixtures", "pg15-hugepages-off")
	if err := os.CopyFS(tree, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	mi := filepath.Join(tree, "proc", "meminfo")
	b, err := os.ReadFile(mi)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range drop {
		b = regexp.MustCompile(`(?m)^`+d+`:.*\n`).ReplaceAll(b, nil)
	}
	if err := os.WriteFile(mi, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "partial.tar.gz")
	roots := []string{"--proc", filepath.Join(tree, "proc"), "--sys", filepath.Join(tree, "sys"), "--root", filepath.Join(tree, "root")}
	if code, o, e := run(t, append(roots, "capture", "-o", out, "--fast")...); code != ExitOK {
		t.Fatalf("capture: exit %d\n%s%s", code, o, e)
	}
	return out
}

// TestPlanPartialCapture: a capture without SwapTotal is planned as far as
// it goes (huge pages, swappiness, the service's settings), the overcommit
// settings are listed as not planned with the reason and the flag, and
// --swap gives the missing value; --ram beside a MemTotal read is refused,
// and without MemTotal it is what the plan needs.
func TestPlanPartialCapture(t *testing.T) {
	b := partialBundle(t, "SwapTotal", "SwapFree")
	code, out, stderr := run(t, "--from", b, "plan", "--no-budget")
	if code != ExitOK {
		t.Fatalf("plan --from without SwapTotal: exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{"swap unknown", "vm.nr_hugepages", "NOT PLANNED (an input is missing)",
		"vm.overcommit_memory, vm.overcommit_ratio: swap unknown (no SwapTotal line in /proc/meminfo)", "--swap SIZE"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan without SwapTotal lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "vm.overcommit_ratio  ") || strings.Contains(out, "swap 0 B") {
		t.Errorf("plan without SwapTotal sets a ratio or shows swap as 0:\n%s", out)
	}
	_, js, _ := run(t, "--from", b, "plan", "--no-budget", "--json")
	var doc struct {
		Host       map[string]any `json:"host"`
		NotPlanned []any          `json:"not_planned"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	if v, ok := doc.Host["swap_bytes"]; !ok || v != nil || doc.Host["swap_unknown"] == nil || len(doc.NotPlanned) != 1 {
		t.Errorf("JSON: swap_bytes %v (want null), swap_unknown %v, not_planned %v", v, doc.Host["swap_unknown"], doc.NotPlanned)
	}
	code, out, stderr = run(t, "--from", b, "plan", "--no-budget", "--swap", "1GiB")
	if code != ExitOK || !strings.Contains(out, "vm.overcommit_ratio 74") || !strings.Contains(out, "SwapTotal 1 GiB from --swap") {
		t.Errorf("plan --from --swap 1GiB: exit %d\n%s%s", code, out, stderr)
	}
	code, _, stderr = run(t, "--from", b, "plan", "--no-budget", "--ram", "8GiB")
	if code != ExitUsage || !strings.Contains(stderr, "--ram 8 GiB: /proc/meminfo has MemTotal 23.5 GiB") {
		t.Errorf("--ram beside MemTotal: exit %d, %s", code, stderr)
	}
	noRAM := partialBundle(t, "MemTotal")
	code, _, stderr = run(t, "--from", noRAM, "plan", "--no-budget")
	if code != ExitError || !strings.Contains(stderr, "no MemTotal line") || !strings.Contains(stderr, "--ram SIZE") {
		t.Errorf("without MemTotal: exit %d, %s", code, stderr)
	}
	code, out, stderr = run(t, "--from", noRAM, "plan", "--no-budget", "--ram", "24GiB")
	if code != ExitOK || !strings.Contains(out, "RAM 24 GiB") || !strings.Contains(out, "MemTotal 24 GiB from --ram") {
		t.Errorf("--ram 24GiB without MemTotal: exit %d\n%s%s", code, out, stderr)
	}
}
