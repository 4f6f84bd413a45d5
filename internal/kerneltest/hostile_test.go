package kerneltest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dbmem/dbmem/internal/hostchange/hostiletest"
)

// TestNobodyCannotSteerTheGuard plants, as nobody, in a private /run/lock
// (hostiletest.Private: the host's is never touched) what used to steer
// root's kernel guard: a journal of the old format naming a file (the old
// replay wrote any path it named, /etc/crontab or a sysctl alike) and a
// link in place of the old lock (root followed it and created its target,
// mode 0644). Lock ignores both, notes the journal, and keeps its own lock
// in /run/dbmem, which nobody cannot even open.
func TestNobodyCannotSteerTheGuard(t *testing.T) {
	if !hostiletest.Private(t) {
		return
	}
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("ORIGINAL\n"), 0o644)
	shared := hostiletest.SharedDir(t)
	hostiletest.MustNobody(t, "printf '"+victim+"\\tPWNED by nobody\\n' > /run/lock/dbmem-kerneltest.journal && ln -s "+shared+"/created /run/lock/dbmem-kerneltest.lock")
	Lock(t)
	if b, _ := os.ReadFile(victim); string(b) != "ORIGINAL\n" {
		t.Errorf("root wrote what nobody's journal said: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(shared, "created")); !os.IsNotExist(err) {
		t.Errorf("root followed nobody's link to its lock: %v", err)
	}
	if st, err := os.Stat(LockPath); err != nil || st.Mode().Perm() != 0o600 || filepath.Dir(LockPath) != "/run/dbmem" {
		t.Errorf("lock %s: %v, %v", LockPath, st, err)
	}
	if out, err := hostiletest.Nobody(t, "flock -n "+LockPath+" true"); err == nil {
		t.Errorf("nobody took the kernel lock: %s", out)
	}
}
