// Package hostiletest lets a test act as an unprivileged local user
// (nobody) against root's dbmem, and plant files in /run/lock and /run/dbmem
// without touching the host's: Private runs the test again in a private
// mount namespace with a fresh /run.
package hostiletest

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// Nobody's ids (Debian's nobody:nogroup).
const (
	NobodyUID = 65534
	NobodyGID = 65534
)

const (
	envTest = "DBMEM_HOSTILE_TEST"
	envNS   = "DBMEM_HOSTILE_PARENT_NS"
)

// Private runs the calling top-level test again, in a child process in a
// new mount namespace (every mount private, so nothing propagates back to
// the host) where /run is a fresh tmpfs holding /run/lock (mode 1777, as
// on the host): the test may plant files in /run/lock and make /run/dbmem
// as it likes. In that child Private returns true and the test goes on. In
// the caller it waits for the child, fails the test with the child's
// output when the child failed (or skipped), and returns false: the caller
// returns at once.
func Private(t *testing.T) bool {
	t.Helper()
	if os.Getenv(envTest) == t.Name() {
		enter(t)
		return true
	}
	if os.Geteuid() != 0 {
		t.Skip("a private mount namespace needs root")
	}
	ns, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), envTest+"="+t.Name(), envNS+"="+ns)
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	passed := bytes.Contains(out, []byte("--- PASS: "+t.Name()+" "))
	if err != nil || !passed {
		t.Fatalf("in a private mount namespace: %v\n%s", err, out)
	}
	t.Logf("in a private mount namespace:\n%s", out)
	return false
}

// enter checks that the child is in a mount namespace of its own, makes
// every mount private again and mounts the fresh /run.
func enter(t *testing.T) {
	t.Helper()
	ns, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil || ns == os.Getenv(envNS) {
		t.Fatalf("not in a mount namespace of its own (%s, %v): nothing is mounted", ns, err)
	}
	if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		t.Fatalf("make / private: %v", err)
	}
	if err := syscall.Mount("tmpfs", "/run", "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=0755"); err != nil {
		t.Fatalf("mount a fresh /run: %v", err)
	}
	if err := os.Mkdir("/run/lock", 0o1777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod("/run/lock", 0o1777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
}

// Nobody runs script with /bin/sh as nobody:nogroup, without
// supplementary groups, and returns its output.
func Nobody(t *testing.T, script string) (string, error) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: NobodyUID, Gid: NobodyGID, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// MustNobody is Nobody failing the test when the script fails.
func MustNobody(t *testing.T, script string) string {
	t.Helper()
	out, err := Nobody(t, script)
	if err != nil {
		t.Fatalf("as nobody: %s: %v: %s", script, err, out)
	}
	return out
}

// SharedDir makes a directory like /tmp (mode 1777, root's) that every
// user can reach and write, removed after the test.
func SharedDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dbmem-hostile-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
