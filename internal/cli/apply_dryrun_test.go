package cli

import (
	"os"
	"strings"
	"testing"
)

// TestApplyDryRun: --dry-run is the default said explicitly: it shows the
// changes, writes nothing, and contradicts --yes (a usage error).
func TestApplyDryRun(t *testing.T) {
	dir := t.TempDir()
	args := append(fixtureArgs("pg15-hugepages-off"), "apply", "--dry-run", "--set", "vm.swappiness=10", "--write-root", dir)
	code, out, stderr := run(t, args...)
	if code != ExitOK || !strings.Contains(out, "vm.swappiness  60 -> 10") || !strings.Contains(out, "Dry run: nothing was changed") {
		t.Fatalf("apply --dry-run: exit %d\n%s%s", code, out, stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("apply --dry-run wrote %d entries under --write-root", len(ents))
	}
	code, _, stderr = run(t, "apply", "--dry-run", "--yes")
	if code != ExitUsage || !strings.Contains(stderr, "--dry-run and --yes") {
		t.Errorf("apply --dry-run --yes: exit %d, %s", code, stderr)
	}
}
