package apply

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dbmem/dbmem/internal/hostchange"
)

const nobody = 65534

func statOf(t *testing.T, path string) (os.FileMode, int, int) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	s := st.Sys().(*syscall.Stat_t)
	return st.Mode().Perm(), int(s.Uid), int(s.Gid)
}

func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (chown)")
	}
}

func TestWriteAtomicKeepsModeAndOwner(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "60-dbmem.conf")
	os.WriteFile(path, []byte("old\n"), 0o640)
	os.Chown(path, nobody, nobody)
	f := FileChange{Target: path, UID: -1, GID: -1}
	f.Content = "new\n"
	if err := f.readCurrent(); err != nil {
		t.Fatal(err)
	}
	if !f.Exists || f.Old != "old\n" {
		t.Fatalf("readCurrent: %+v", f)
	}
	if err := hostchange.WriteFile(path, []byte(f.Content), f.Mode, f.UID, f.GID); err != nil {
		t.Fatal(err)
	}
	if mode, uid, gid := statOf(t, path); mode != 0o640 || uid != nobody || gid != nobody {
		t.Errorf("after replacing: mode %o owner %d:%d, want 640 %d:%d", mode, uid, gid, nobody, nobody)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("content %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the temporary file was left behind: %v", ents)
	}
}

func TestNewFileTakesTheDirectorysOwner(t *testing.T) {
	needRoot(t)
	root := t.TempDir()
	conf := filepath.Join(root, "etc/postgresql/15/main/conf.d")
	os.MkdirAll(conf, 0o755)
	os.Chown(conf, nobody, nobody)
	f := FileChange{Target: filepath.Join(conf, "60-dbmem.conf"), UID: -1, GID: -1}
	f.readCurrent()
	if f.Exists || f.UID != nobody {
		t.Fatalf("a new file in a directory of uid %d should get it: %+v", nobody, f)
	}
	dirs, err := mkdirs(filepath.Join(root, "etc/systemd/system/x.service.d"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "etc/systemd"), filepath.Join(root, "etc/systemd/system"), filepath.Join(root, "etc/systemd/system/x.service.d")}
	if strings.Join(dirs, " ") != strings.Join(want, " ") {
		t.Errorf("created %v, want %v (outermost first)", dirs, want)
	}
	removeEmptyDirs(dirs)
	if _, err := os.Stat(filepath.Join(root, "etc/systemd")); !os.IsNotExist(err) {
		t.Errorf("removeEmptyDirs left %s/etc/systemd", root)
	}
}

func TestBackupIsTimestampedAndExact(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "60-dbmem.conf")
	os.WriteFile(path, []byte("a\x00b no newline"), 0o600)
	os.Chown(path, nobody, 0)
	b, err := backup(path, backupName(path, "20250102T150405.123Z"))
	if err != nil {
		t.Fatal(err)
	}
	if b != path+".dbmem-20250102T150405.123Z" || strings.HasSuffix(b, ".conf") {
		t.Errorf("backup name %s (must carry the time and never end in .conf)", b)
	}
	hostchange.WriteFile(path, []byte("replaced"), 0o644, 0, 0)
	got, _ := os.ReadFile(b)
	if string(got) != "a\x00b no newline" {
		t.Errorf("backup holds %q after the file was replaced", got)
	}
	if mode, uid, _ := statOf(t, b); mode != 0o600 || uid != nobody {
		t.Errorf("backup mode %o owner %d", mode, uid)
	}
}
