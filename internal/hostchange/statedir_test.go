package hostchange

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange/hostiletest"
)

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the test gives files to nobody")
	}
}

// TestStateDirRefusesWhatOthersControl: a state directory made with a
// mode others may write, owned by nobody, reached through nobody's link,
// or under a directory others may write (not sticky) is refused, naming
// the path and the fix; a fresh one is made 0700 and accepted.
func TestStateDirRefusesWhatOthersControl(t *testing.T) {
	needRoot(t)
	shared := hostiletest.SharedDir(t)
	fresh := filepath.Join(shared, "fresh", "state")
	if err := StateDir(fresh); err != nil {
		t.Fatalf("a fresh state directory: %v", err)
	}
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o700 {
		t.Errorf("made with mode %v, want 0700", st.Mode().Perm())
	}
	bad := map[string]string{}
	open := filepath.Join(shared, "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777)
	bad[open] = "has mode 0777"
	theirs := filepath.Join(shared, "theirs")
	os.Mkdir(theirs, 0o700)
	os.Chown(theirs, hostiletest.NobodyUID, hostiletest.NobodyGID)
	bad[theirs] = "is owned by uid 65534"
	hostiletest.MustNobody(t, "mkdir -m 700 "+shared+"/target && ln -s "+shared+"/target "+shared+"/link")
	bad[filepath.Join(shared, "link")] = "symbolic link owned by uid 65534"
	bad[filepath.Join(shared, "link", "state")] = "symbolic link owned by uid 65534"
	group := filepath.Join(shared, "group")
	os.Mkdir(group, 0o700)
	os.Chmod(group, 0o777) // no sticky bit: others can rename what is inside
	bad[filepath.Join(group, "state")] = "the directory " + group + " above it has mode 0777"
	for dir, want := range bad {
		err := StateDir(dir)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "fix") || !strings.Contains(err.Error(), dir) {
			t.Errorf("StateDir(%s) = %v, want a refusal saying %q, the path and the fix", dir, err, want)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(shared, "target")); len(ents) != 0 {
		t.Errorf("made through nobody's link: %v", ents)
	}
}

// TestOpenStateRefusesWhatOthersControl: a link, a FIFO (without
// blocking), a file of nobody's and a file others may write are refused.
func TestOpenStateRefusesWhatOthersControl(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("x"), 0o600)
	os.Symlink(target, filepath.Join(dir, "link"))
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600)
	os.WriteFile(filepath.Join(dir, "theirs"), nil, 0o600)
	os.Chown(filepath.Join(dir, "theirs"), hostiletest.NobodyUID, hostiletest.NobodyGID)
	os.WriteFile(filepath.Join(dir, "open"), nil, 0o600)
	os.Chmod(filepath.Join(dir, "open"), 0o666)
	for name, want := range map[string]string{"link": "symbolic link", "fifo": "not a regular file", "theirs": "owned by uid 65534", "open": "mode 0666"} {
		done := make(chan error, 1)
		go func() {
			f, err := OpenState(filepath.Join(dir, name), os.O_RDWR, 0)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("OpenState(%s) = %v, want %q", name, err, want)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("OpenState(%s) blocked", name)
		}
	}
	if b, _, err := ReadState(target); err != nil || string(b) != "x" {
		t.Errorf("ReadState of a good file: %q, %v", b, err)
	}
}

// TestNobodyCannotHoldTheLock: the lock is in a state directory, so
// nobody cannot even open it; a holder is named in a BusyError.
func TestNobodyCannotHoldTheLock(t *testing.T) {
	needRoot(t)
	shared := hostiletest.SharedDir(t)
	path := filepath.Join(shared, "state", "apply.lock")
	l, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := hostiletest.Nobody(t, "flock -n "+path+" true"); err == nil {
		t.Errorf("nobody opened and locked %s: %s", path, out)
	}
	if _, err := TryLock(path); err == nil || !strings.Contains(err.Error(), "held by pid") {
		t.Errorf("second TryLock: %v, want a BusyError naming the holder", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	if _, err := TakeLock(ctx, path); err == nil || !strings.Contains(err.Error(), "waiting for") {
		t.Errorf("TakeLock while held: %v", err)
	}
	l.Release()
	l.Release()
	if l, err = TakeLock(context.Background(), path); err != nil {
		t.Fatalf("TakeLock once free: %v", err)
	}
	l.Release()
}
