package history

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// asNobody runs a command as the unprivileged user nobody, as an attacker
// on the host would.
func asNobody(t *testing.T, name string, args ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("acting as nobody needs root")
	}
	cmd := exec.Command("setpriv", append([]string{"--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", name}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as nobody: %s %q: %v\n%s", name, args, err, out)
	}
}

// stickyDir is a world-writable sticky directory, as /tmp is, in a
// directory everyone may search.
func stickyDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dbmem-history-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return dir
}

func refuses(t *testing.T, err error, what, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: %v, want a refusal saying %q", what, err, want)
	}
}

// TestRecordFollowsNoLinkOfAnotherUser: in a sticky directory such as
// /tmp, nobody plants a link named like the history, pointing into a
// directory only root can write. Root's `watch --record` used to create
// (and fill) the link's target; `history` read through it. Now both
// refuse the link, and nothing is created at its target.
func TestRecordFollowsNoLinkOfAnotherUser(t *testing.T) {
	tmp := stickyDir(t)
	private := filepath.Join(t.TempDir(), "root-only")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(private, "victim.db")
	link := filepath.Join(tmp, "watch.db")
	asNobody(t, "ln", "-s", target, link)
	s, err := Open(link, 0)
	if err == nil {
		s.Close()
	}
	refuses(t, err, "record through nobody's link", "is a symbolic link (to "+target+")")
	if _, err := os.Lstat(target); err == nil {
		t.Errorf("%s was created through the link", target)
	}
	_, err = Load(context.Background(), link, time.Time{}, time.Time{})
	refuses(t, err, "history through nobody's link", "is a symbolic link")
}

// TestRecordWritesNoFileOfAnotherUser: nobody creates the history file,
// or the write-ahead log next to it, before root records: root used to
// write its history into nobody's files, which nobody could then read and
// change. Now the file is refused and left as it was.
func TestRecordWritesNoFileOfAnotherUser(t *testing.T) {
	tmp := stickyDir(t)
	theirs := filepath.Join(tmp, "theirs.db")
	asNobody(t, "touch", theirs)
	s, err := Open(theirs, 0)
	if err == nil {
		s.Close()
	}
	refuses(t, err, "record into nobody's file", "belongs to uid 65534")
	if st, err := os.Stat(theirs); err != nil || st.Size() != 0 {
		t.Errorf("nobody's file after the refusal: %v %v", st, err)
	}
	_, err = Load(context.Background(), theirs, time.Time{}, time.Time{})
	refuses(t, err, "read nobody's file", "belongs to uid 65534")

	mine := filepath.Join(tmp, "mine.db")
	asNobody(t, "touch", mine+"-wal")
	s, err = Open(mine, 0)
	if err == nil {
		s.Close()
	}
	refuses(t, err, "record next to nobody's -wal", mine+"-wal belongs to uid 65534")
	if st, err := os.Stat(mine + "-wal"); err != nil || st.Size() != 0 {
		t.Errorf("nobody's -wal after the refusal: %v %v", st, err)
	}
}

// TestRecordRefusesDirectoriesOthersControl: a directory another user
// owns, or may write without the sticky bit, lets that user swap the
// history or its journal while root writes: refused. A hard link to
// another file is refused too.
func TestRecordRefusesDirectoriesOthersControl(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("directories of another user need root")
	}
	base := t.TempDir()
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o777)
	theirs := filepath.Join(base, "theirs")
	os.Mkdir(theirs, 0o755)
	os.Chown(theirs, 65534, 65534)
	for dir, want := range map[string]string{open: "is writable by other users", theirs: "belongs to uid 65534"} {
		s, err := Open(filepath.Join(dir, "watch.db"), 0)
		if err == nil {
			s.Close()
		}
		refuses(t, err, dir, want)
		if _, err := os.Stat(filepath.Join(dir, "watch.db")); err == nil {
			t.Errorf("%s: the history was created", dir)
		}
	}
	other := filepath.Join(base, "other")
	os.WriteFile(other, nil, 0o600)
	os.Link(other, filepath.Join(base, "linked.db"))
	_, err := Open(filepath.Join(base, "linked.db"), 0)
	refuses(t, err, "a second name of another file", "has 2 names")
}

// TestRecordPathIsAPath: `--record 'other.db?x=1'` used to open other.db
// as an SQLite URI with a parameter and add dbmem's tables to it. The
// name is a name: the history is the file called "other.db?x=1", and
// other.db is left byte for byte as it was.
func TestRecordPathIsAPath(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.db")
	makeSQLite(t, other, `CREATE TABLE shop (id INTEGER PRIMARY KEY); INSERT INTO shop VALUES (1);`)
	before, _ := os.ReadFile(other)
	for _, name := range []string{"other.db?x=1", "other.db?mode=memory", "other.db#frag", "100%.db"} {
		p := filepath.Join(dir, name)
		s, err := Open(p, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.Add(frame(0)); err != nil {
			t.Fatal(err)
		}
		s.Close()
		h, err := Load(context.Background(), p, time.Time{}, time.Time{})
		if err != nil || h.Samples != 1 {
			t.Errorf("%s: history %+v, %v", name, h, err)
		}
	}
	if after, _ := os.ReadFile(other); !bytes.Equal(before, after) {
		t.Errorf("other.db changed: %d bytes before, %d after", len(before), len(after))
	}
	db, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if names, err := tableNames(db); err != nil || len(names) != 1 {
		t.Errorf("other.db's tables: %v %v, want only shop", names, err)
	}
}

// TestNewHistoryIsPrivate: a new history is created mode 0600, and SQLite
// finds its -wal and -shm already there, root's.
func TestNewHistoryIsPrivate(t *testing.T) {
	p := filepath.Join(stickyDir(t), "new.db")
	s, err := Open(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{p, p + "-wal", p + "-shm"} {
		st, err := os.Stat(f)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want mode 0600", f, st, err)
		}
	}
	s.Close()
}
