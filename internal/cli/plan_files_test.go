package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/archetype/archetypetest"
)

// TestPlanSystemdFiles: --format systemd makes the drop-in and the /sys
// unit; printed together they would be one broken drop-in, so dbmem asks
// for --out-dir or --target, and writes each file on its own. The host is
// the archetype debian12-pg15-6.1: THP always, which PostgreSQL advises
// against, so the plan has a /sys unit.
func TestPlanSystemdFiles(t *testing.T) {
	dir := archetypetest.Dir(t, "debian12-pg15-6.1")
	fx := []string{"--proc", filepath.Join(dir, "proc"), "--sys", filepath.Join(dir, "sys"), "--root", filepath.Join(dir, "root")}
	code, out, stderr := run(t, append(fx, "plan", "--format", "systemd")...)
	if code != ExitUsage || !strings.Contains(stderr, "--out-dir") || out != "" {
		t.Fatalf("two files to one stream: exit %d, stdout %q, stderr %s", code, out, stderr)
	}
	dir = t.TempDir()
	code, out, stderr = run(t, append(fx, "plan", "--format", "systemd", "--out-dir", dir)...)
	if code != ExitOK {
		t.Fatalf("--out-dir: exit %d %s", code, stderr)
	}
	var dropIn string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(filepath.Dir(p), ".service.d") {
			dropIn = p
		}
		return nil
	})
	b, err := os.ReadFile(dropIn)
	if err != nil {
		t.Fatalf("no drop-in written (%v):\n%s", err, out)
	}
	for _, bad := range []string{"Type=", "ExecStart=", "[Install]"} {
		if strings.Contains(string(b), bad) {
			t.Errorf("the drop-in %s sets %s: it would change how the database starts", dropIn, bad)
		}
	}
	if code, _, _ := run(t, append(fx, "plan", "--format", "tuned", "--out-dir", dir)...); code != ExitUsage {
		t.Errorf("--out-dir with --format tuned: exit %d, want %d", code, ExitUsage)
	}
	code, out, _ = run(t, append(fx, "plan", "--format", "systemd", "--target", "dbmem-sysfs.service")...)
	if code != ExitOK || !strings.Contains(out, "Type=oneshot") || strings.Contains(out, "OOMScoreAdjust") {
		t.Errorf("--target dbmem-sysfs.service: exit %d\n%s", code, out)
	}
}
