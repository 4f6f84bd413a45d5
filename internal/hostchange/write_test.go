package hostchange

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dbmem/dbmem/internal/hostchange/hostiletest"
)

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// temps lists dir's temporary files.
func temps(dir string) []string {
	names, _ := filepath.Glob(filepath.Join(dir, "*"+TempMark+"*"))
	return names
}

// TestWriteFileKeepsModeAndOwner: the file gets the mode and owner asked
// for, and a failing fill leaves the old file and no temporary file.
func TestWriteFileKeepsModeAndOwner(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "60-dbmem.conf")
	os.WriteFile(path, []byte("old\n"), 0o644)
	if err := WriteFile(path, []byte("new\n"), 0o640, hostiletest.NobodyUID, hostiletest.NobodyGID); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if s := st.Sys().(*syscall.Stat_t); readString(t, path) != "new\n" || st.Mode().Perm() != 0o640 || s.Uid != hostiletest.NobodyUID || s.Gid != hostiletest.NobodyGID {
		t.Errorf("written: %q, mode %v, owner %d:%d", readString(t, path), st.Mode().Perm(), s.Uid, s.Gid)
	}
	boom := errors.New("boom")
	err := File{Path: path, Mode: 0o644, UID: -1, GID: -1}.Write(func(w io.Writer) error { w.Write([]byte("half")); return boom })
	if !errors.Is(err, boom) || readString(t, path) != "new\n" || len(temps(dir)) != 0 {
		t.Errorf("failed fill: %v; file %q; temporary files %v", err, readString(t, path), temps(dir))
	}
}

// TestRemoveTemps removes what a killed writer left for a file, its
// backup's copy too, but not another file's, a link, or a file of a user
// who owns neither it nor the directory.
func TestRemoveTemps(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	mine := filepath.Join(dir, ".60-dbmem.conf"+TempMark+"1")
	backup := filepath.Join(dir, ".60-dbmem.conf.dbmem-20250301T120000.000Z"+TempMark+"2")
	other := filepath.Join(dir, ".other.conf"+TempMark+"3")
	theirs := filepath.Join(dir, ".60-dbmem.conf"+TempMark+"4")
	link := filepath.Join(dir, ".60-dbmem.conf"+TempMark+"5")
	for _, p := range []string{mine, backup, other, theirs} {
		os.WriteFile(p, nil, 0o600)
	}
	os.Chown(theirs, hostiletest.NobodyUID, hostiletest.NobodyGID)
	os.Symlink(other, link)
	got := RemoveTemps(dir, "60-dbmem.conf")
	if strings.Join(got, " ") != backup+" "+mine {
		t.Errorf("removed %v, want %s and %s", got, backup, mine)
	}
	for _, p := range []string{other, theirs, link} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if got := RemoveTemps(dir, ""); len(got) != 1 || got[0] != other {
		t.Errorf("every temporary file of the directory: removed %v, want %s", got, other)
	}
}
