package hostchange

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/hostchange/hostiletest"
)

func writeReport(path string) error {
	return WriteOutput(path, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "<html>report</html>"); return err })
}

// TestWriteOutputRefusesLinksAndOthersFiles: in a directory like /tmp,
// nobody's link to a root file and nobody's own file are refused and left
// as they were, naming the path; a new file and the user's own are
// written (the own keeps its mode).
func TestWriteOutputRefusesLinksAndOthersFiles(t *testing.T) {
	needRoot(t)
	shared := hostiletest.SharedDir(t)
	secret := filepath.Join(t.TempDir(), "root-only")
	os.WriteFile(secret, []byte("root's\n"), 0o600)
	hostiletest.MustNobody(t, "ln -s "+secret+" "+shared+"/linked.html && echo mine > "+shared+"/theirs.html")
	for name, want := range map[string]string{"linked.html": "is a symbolic link (to " + secret + ")", "theirs.html": "belongs to uid 65534"} {
		p := filepath.Join(shared, name)
		if err := writeReport(p); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	if readString(t, secret) != "root's\n" || readString(t, filepath.Join(shared, "theirs.html")) != "mine\n" {
		t.Error("a refused path was written")
	}
	if st, err := os.Lstat(filepath.Join(shared, "linked.html")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("nobody's link was replaced: %v", err)
	}
	fresh := filepath.Join(shared, "fresh.html")
	if err := writeReport(fresh); err != nil || readString(t, fresh) != "<html>report</html>" {
		t.Fatalf("a new file: %v", err)
	}
	os.Chmod(fresh, 0o600)
	if err := writeReport(fresh); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o600 || len(temps(shared)) != 0 {
		t.Errorf("own file rewritten with mode %v (want 0600 kept); temporary files %v", st.Mode().Perm(), temps(shared))
	}
}

// TestOutputDirRefusesOthersDirectories: an output tree is not written
// through a directory nobody replaced with a link, nor into nobody's
// directory.
func TestOutputDirRefusesOthersDirectories(t *testing.T) {
	needRoot(t)
	shared := hostiletest.SharedDir(t)
	etc := t.TempDir()
	hostiletest.MustNobody(t, "mkdir "+shared+"/theirs && mkdir -m 755 "+shared+"/out && ln -s "+etc+" "+shared+"/out/etc")
	os.Chown(filepath.Join(shared, "out"), 0, 0)
	for dir, want := range map[string]string{filepath.Join(shared, "theirs"): "belongs to uid 65534", filepath.Join(shared, "out"): "symbolic link (to " + etc + ") of uid 65534"} {
		if _, err := OutputDir(dir, "etc/sysctl.d"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("OutputDir(%s): %v, want %q", dir, err, want)
		}
	}
	if ents, _ := os.ReadDir(etc); len(ents) != 0 {
		t.Errorf("written through nobody's link: %v", ents)
	}
	got, err := OutputDir(filepath.Join(shared, "mine"), "etc/sysctl.d")
	if err != nil || got != filepath.Join(shared, "mine", "etc", "sysctl.d") {
		t.Errorf("a fresh tree: %s, %v", got, err)
	}
}
