package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/postmortem"
)

// A bundle captured from a recorded tree gives the same report, check and
// JSON as the tree itself.
func TestCaptureAndReadFrom(t *testing.T) {
	b := filepath.Join(t.TempDir(), "b.tar.gz")
	code, out, stderr := run(t, append(fixtureArgs("pg15-hugepages-off"), "capture", "-o", b, "--fast")...)
	if code != ExitOK || !strings.Contains(out, "wrote "+b) {
		t.Fatalf("capture: exit %d\n%s%s", code, out, stderr)
	}
	for _, args := range [][]string{{"report", "--fast", "--all"}, {"check", "--fast"}} {
		_, want, _ := run(t, append(fixtureArgs("pg15-hugepages-off"), args...)...)
		code, got, stderr := run(t, append([]string{"--from", b}, args...)...)
		if code != ExitOK {
			t.Fatalf("%v --from: exit %d: %s", args, code, stderr)
		}
		if dropTiming(got) != dropTiming(want) {
			t.Errorf("%v --from differs from the tree:\n--- from the bundle\n%s\n--- from the tree\n%s", args, got, want)
		}
	}
	_, want, _ := run(t, append(fixtureArgs("pg15-hugepages-off"), "report", "--fast", "--json")...)
	_, got, _ := run(t, "--from", b, "report", "--fast", "--json")
	if snapJSON(t, got) != snapJSON(t, want) {
		t.Errorf("report --json --from differs from the tree")
	}
}

func TestFromErrors(t *testing.T) {
	if code, _, stderr := run(t, "--from", "x.tar.gz", "--proc", "/proc", "report"); code != ExitUsage || !strings.Contains(stderr, "--from and --proc") {
		t.Errorf("--from with --proc: exit %d %s", code, stderr)
	}
	if code, _, stderr := run(t, "--from", filepath.Join(t.TempDir(), "none.tar.gz"), "report"); code != ExitError || !strings.Contains(stderr, "open bundle") {
		t.Errorf("missing bundle: exit %d %s", code, stderr)
	}
	if code, _, stderr := run(t, "--from", "x.tar.gz", "capture"); code != ExitUsage || !strings.Contains(stderr, "acts on the live host") {
		t.Errorf("capture --from: exit %d %s", code, stderr)
	}
}

// postmortem on the real kernel report and server log of a backend killed
// in a memory cgroup on this machine, given as files.
func TestPostmortemOnRecordedLogs(t *testing.T) {
	code, out, stderr := run(t, append(fixtureArgs("pg15-hugepages-off"), "postmortem",
		"--kernel-log", "../oomlog/testdata/pg-backend-memcg-v1-kernel-6.18.44-fc-v769-dmesg-iso.txt",
		"--db-log", "../dblog/testdata/postgresql-15-backend-oom-kill-stderr.log")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"memory cgroup OOM", "killed   postgres pid 4180: client backend", "PostgreSQL crash restart (paired with the kill by pid (certain))",
		"it was running: SELECT sum(i)", "ready to accept connections", "One process's death restarted the whole instance"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, append(fixtureArgs("pg15-hugepages-off"), "--json", "postmortem",
		"--kernel-log", "../oomlog/testdata/pg-backend-memcg-v1-kernel-6.18.44-fc-v769-dmesg-iso.txt")...)
	var doc struct {
		Schema string `json:"schema"`
		Kills  int    `json:"kills"`
	}
	if err := json.Unmarshal([]byte(out), &doc); code != ExitOK || err != nil || doc.Schema != postmortem.Schema || doc.Kills != 1 {
		t.Errorf("--json: exit %d, %v, %+v", code, err, doc)
	}
}

// dropTiming removes the report header's time and read duration.
func dropTiming(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 0 && strings.HasPrefix(lines[0], "dbmem report") {
		lines = lines[1:]
	}
	return strings.Join(lines, "\n")
}

func snapJSON(t *testing.T, s string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	snap := m["snapshot"].(map[string]any)
	delete(snap, "taken_at")
	delete(snap, "elapsed_ns")
	b, _ := json.Marshal(m)
	return string(b)
}
