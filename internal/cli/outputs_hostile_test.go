package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/hostchange/hostiletest"
)

// TestOutputsRefuseLinksAndOthersFiles: in a directory like /tmp, nobody
// plants a link to a root-only file and a file of its own under the names
// root's dbmem is asked to write (history, lab, report and check --html, capture -o,
// plan --out-dir, whose tree nobody pre-made with a link to a root-only
// directory). Each is refused naming the path, and nothing is written
// through the link or into nobody's file.
func TestOutputsRefuseLinksAndOthersFiles(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("gives files to nobody: run as root")
	}
	shared := hostiletest.SharedDir(t)
	private := t.TempDir()
	secret := filepath.Join(private, "shadow")
	os.WriteFile(secret, []byte("root only\n"), 0o600)
	record := filepath.Join(t.TempDir(), "watch.db")
	if code, _, stderr := run(t, append(fixtureArgs("pg15-hugepages-off"), "watch", "--count", "1", "--record", record)...); code != ExitOK {
		t.Fatalf("record: exit %d: %s", code, stderr)
	}
	hostiletest.MustNobody(t, "cd "+shared+" && for f in history lab bundle report check; do ln -s "+secret+" $f-link; echo nobody > $f-theirs; done && "+
		"mkdir -m 755 out && ln -s "+private+" out/etc")
	os.Chown(filepath.Join(shared, "out"), 0, 0) // root's directory, nobody's link inside
	cases := map[string]func(path string) []string{
		"history": func(p string) []string { return []string{"history", "--html", p, record} },
		"lab":     func(p string) []string { return []string{"lab", "--from", labFixture, "--html", p} },
		"report":  func(p string) []string { return append(fixtureArgs("pg15-hugepages-off"), "report", "--html", p) },
		"check":   func(p string) []string { return append(fixtureArgs("pg15-hugepages-off"), "check", "--html", p) },
		"bundle": func(p string) []string {
			return append(fixtureArgs("pg15-hugepages-off"), "capture", "--fast", "-o", p)
		},
	}
	for name, args := range cases {
		for suffix, want := range map[string]string{"-link": "is a symbolic link", "-theirs": "belongs to uid 65534"} {
			p := filepath.Join(shared, name+suffix)
			code, _, stderr := run(t, args(p)...)
			if code == ExitOK || !strings.Contains(stderr, want) || !strings.Contains(stderr, p) {
				t.Errorf("%s to %s: exit %d, %s; want refused: %q", name, p, code, stderr, want)
			}
		}
	}
	code, _, stderr := run(t, append(fixtureArgs("pg15-hugepages-off"), "plan", "--format", "sysctl", "--out-dir", filepath.Join(shared, "out"))...)
	if code == ExitOK || !strings.Contains(stderr, "symbolic link") {
		t.Errorf("plan --out-dir through nobody's link: exit %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(secret); string(b) != "root only\n" {
		t.Errorf("written through nobody's link: %q", b)
	}
	if ents, _ := os.ReadDir(private); len(ents) != 1 {
		t.Errorf("plan --out-dir wrote through nobody's link: %v", ents)
	}
	for name := range cases {
		if b, _ := os.ReadFile(filepath.Join(shared, name+"-theirs")); string(b) != "nobody\n" {
			t.Errorf("nobody's file %s-theirs was written: %q", name, b)
		}
	}
	fresh := filepath.Join(shared, "fresh.html")
	if code, _, stderr := run(t, cases["history"](fresh)...); code != ExitOK {
		t.Errorf("a new file: exit %d, %s", code, stderr)
	}
	if st, err := os.Stat(fresh); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("new chart page: %v %v", st, err)
	}
}
