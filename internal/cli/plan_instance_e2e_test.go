package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

// TestPlanNamesItsInstance runs the built binary against real throwaway
// clusters started with pg_ctl (no service unit runs them): every setting
// and the huge page sum name the instance; no drop-in is planned for an
// unrelated unit, the note gives the exact pg_ctl words; a plan limited to
// one instance says how the host-wide settings count the others; and
// --data-dir with --format postgresql --out-dir writes that cluster's
// file only.
func TestPlanNamesItsInstance(t *testing.T) {
	env := []string{"PATH=/usr/bin:/bin"}
	running := pgtest.Start(t, nil)
	port := strconv.Itoa(running.Port)
	code, out, stderr := runAs(t, nil, env, "plan", "--pg-port", port, "--no-budget")
	if code != ExitOK {
		t.Fatalf("plan --pg-port %s: exit %d\n%s%s", port, code, out, stderr)
	}
	subject := ":" + port + " (" + running.DataDir + ")"
	for _, want := range []string{
		"for postgresql ", // the huge page sum's term
		"SETTINGS  postgresql ",
		subject,
		"no systemd drop-in is planned for it",
		"pg_ctl -D " + running.DataDir + " restart",
		"PG_OOM_ADJUST_VALUE=0 pg_ctl -D " + running.DataDir,
		"--pg-port " + port + " plans one instance",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan --pg-port lacks %q:\n%s", want, out)
		}
	}
	if regexp.MustCompile(`(?m)^\s+systemd\s`).MatchString(out) || strings.Contains(out, "postgresql.service") {
		t.Errorf("a drop-in planned for a unit that does not run the cluster:\n%s", out)
	}
	if strings.Contains(out, " needed (") {
		t.Errorf("an unnamed term in the huge page sum:\n%s", out)
	}

	stopped := pgtest.Create(t, map[string]string{"include_dir": "conf.d"})
	if err := os.Mkdir(filepath.Join(stopped.DataDir, "conf.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	code, out, stderr = runAs(t, nil, env, "plan", "--data-dir", stopped.DataDir, "--no-budget", "--format", "postgresql", "--out-dir", outDir)
	if code != ExitOK {
		t.Fatalf("plan --data-dir --format postgresql: exit %d\n%s%s", code, out, stderr)
	}
	var written []string
	filepath.WalkDir(outDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			written = append(written, strings.TrimPrefix(p, outDir))
		}
		return nil
	})
	if len(written) != 1 || !strings.HasPrefix(written[0], filepath.Join(stopped.DataDir, "conf.d")+"/") {
		t.Errorf("--data-dir %s wrote %v; want one file in its conf.d", stopped.DataDir, written)
	}
}
