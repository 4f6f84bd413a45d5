package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWatchFrom: watch reads a bundle (--from) as report does: the
// captured host's instance, ticks that do not move.
func TestWatchFrom(t *testing.T) {
	b := filepath.Join(t.TempDir(), "b.tar.gz")
	if code, out, stderr := run(t, append(fixtureArgs("pg15-hugepages-off"), "capture", "-o", b, "--fast")...); code != ExitOK {
		t.Fatalf("capture: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr := run(t, "--from", b, "watch", "--count", "2", "--interval", "100ms")
	if code != ExitOK {
		t.Fatalf("watch --from: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"tick 1", "tick 2", "/tmp/dbmem-pg-3181317436/data", "MemAvailable 21.6 GiB of 23.5 GiB"} {
		if !strings.Contains(out, want) {
			t.Errorf("watch --from lacks %q:\n%s", want, out)
		}
	}
}
