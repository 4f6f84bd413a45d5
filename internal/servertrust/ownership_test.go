package servertrust

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

// TestReadOwnership reads two real processes: this test (root, its
// binary root's) and a copy of sleep that nobody runs from a directory
// nobody owns, named postgres: the kernel's owners, never the names.
func TestReadOwnership(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("starting a process as nobody needs root")
	}
	fs := linux.DefaultFS()
	self := ReadOwnership(fs, os.Getpid(), "")
	if self == nil || self.Process.UID != 0 || self.Binary == nil || self.Binary.Owner.UID != 0 || len(self.Failed) > 0 {
		t.Fatalf("this process: %+v", self)
	}
	dir, pid := startAsNobody(t)
	o := ReadOwnership(fs, pid, filepath.Join(dir, "data"))
	if o == nil || o.Process.UID != 65534 || o.Binary == nil || o.Binary.Owner.UID != 65534 ||
		o.Binary.Path != filepath.Join(dir, "postgres") || o.DataDir == nil || o.DataDir.Owner.UID != 65534 {
		t.Fatalf("nobody's fake postgres: %+v (binary %+v, data %+v)", o, o.Binary, o.DataDir)
	}
	if ReadOwnership(linux.FS{Proc: "/x/proc", Sys: "/sys"}, pid, "") != nil {
		t.Error("a tree that is not this host's /proc gave owners")
	}
	p := Policy{}
	if v := p.Vouch(o, "postgres"); !v.Known || v.Trusted || !strings.Contains(v.Why, "--server-account nobody") {
		t.Errorf("nobody's fake postgres: %+v", v)
	}
	if v := (Policy{Accounts: []string{"nobody"}}).Vouch(o, "postgres"); !v.Trusted {
		t.Errorf("with --server-account nobody: %+v", v)
	}
	if v := p.Vouch(self, "postgres"); !v.Trusted {
		t.Errorf("this process, root's: %+v", v)
	}
}

// startAsNobody starts sleep as nobody, copied to DIR/postgres (nobody's)
// and run from DIR/data; it is killed at cleanup.
func startAsNobody(t *testing.T) (string, int) {
	t.Helper()
	dir, err := os.MkdirTemp("", "dbmem-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	b, err := os.ReadFile("/bin/sleep")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "postgres"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "data"), filepath.Join(dir, "postgres")} {
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(dir, 0o755)
	cmd := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", filepath.Join(dir, "postgres"), "600")
	cmd.Dir = filepath.Join(dir, "data")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if exe, _ := os.Readlink("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/exe"); exe == filepath.Join(dir, "postgres") {
			return dir, cmd.Process.Pid
		}
		if time.Now().After(end) {
			t.Fatal("setpriv did not exec the fake postgres within 2 minutes")
		}
	}
}
