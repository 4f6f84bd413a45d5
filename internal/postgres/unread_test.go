package postgres_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/postgres"
)

// TestDiscoverUnreadFilesGuessNothing: a captured instance whose
// postmaster.pid and postgresql.conf could not be read (as for a
// non-root user) has no port and no settings but those of its command
// line, never 5432 nor the built-in defaults, and the gaps say why.
func TestDiscoverUnreadFilesGuessNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	if out, err := exec.Command("cp", "-a", fixture("pg15-hugepages-off"), dir).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	data := filepath.Join(dir, "root", "tmp", "dbmem-pg-3181317436", "data")
	for _, f := range []string{"postmaster.pid", "postgresql.conf", "postgresql.auto.conf"} {
		if err := os.Remove(filepath.Join(data, f)); err != nil {
			t.Fatal(err)
		}
	}
	ins, _, err := postgres.Discover(context.Background(), capture.TreeFS(dir), postgres.Options{})
	if err != nil || len(ins) != 1 {
		t.Fatal(ins, err)
	}
	in := ins[0]
	if in.Port != 0 || in.SocketDir != "" {
		t.Errorf("port %d socket %q guessed", in.Port, in.SocketDir)
	}
	for name, s := range in.Settings {
		if s.Source != postgres.FromCommandLine {
			t.Errorf("setting %s=%s from %s, not read from this instance", name, s.Value, s.Source)
		}
	}
	var gaps []string
	for _, g := range in.Gaps {
		gaps = append(gaps, g.String())
	}
	if all := strings.Join(gaps, "\n"); !strings.Contains(all, "postmaster.pid") || !strings.Contains(all, "settings unknown except the command line's") {
		t.Errorf("gaps:\n%s", all)
	}
}
