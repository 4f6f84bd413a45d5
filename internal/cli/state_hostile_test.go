package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/hostchange/hostiletest"
	"github.com/dbmem/dbmem/internal/linux"
)

// rootEnv is the environment root's dbmem runs with in these tests.
var rootEnv = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root"}

// TestNobodyCannotSteerRootsState plants, as nobody, in a private /run
// (hostiletest.Private: the host's /run/lock is never touched), what used
// to make root's dbmem act for it:
//   - a lab journal in /run/lock naming a file root then rewrote (any file
//     nobody can read: /etc/crontab, a sysctl) and a "cluster" directory
//     whose postmaster.pid names a root process with that directory in its
//     command line, which root then killed (SIGQUIT, SIGKILL) before
//     removing the directory: `dbmem lab --restore` now ignores the journal
//     and says so, and the file, the process and the directory are left;
//   - a flock on /run/lock/dbmem-apply.lock, which blocked apply and
//     rollback: rollback now runs (its lock is /run/dbmem/apply.lock,
//     which nobody cannot open).
//
// Then it rewrites the attack around the fix: nobody cannot make
// /run/dbmem; a /run/dbmem root made writable by everyone, one given to
// nobody, a link to nobody's directory, a lab journal that is a link or
// nobody's file, or one others may write are each refused, naming the
// path and the fix.
func TestNobodyCannotSteerRootsState(t *testing.T) {
	if !hostiletest.Private(t) {
		return
	}
	victim := filepath.Join(t.TempDir(), "crontab")
	os.WriteFile(victim, []byte("ORIGINAL\n"), 0o644)
	cluster := fmt.Sprintf("/tmp/dbmem-pg-hostile-%d", os.Getpid())
	t.Cleanup(func() { os.RemoveAll(cluster) })
	proc := exec.Command("/bin/sh", "-c", "sleep 600", cluster+"/data")
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Process.Kill(); proc.Wait() })
	journal := fmt.Sprintf(`{"pid":999999,"start_ticks":1,"cluster_dir":%q,"changes":[{"path":%q,"set":"ORIGINAL","before":"PWNED by nobody"}]}`, cluster, victim)
	hostiletest.MustNobody(t, fmt.Sprintf("mkdir -p %s/data && echo %d > %s/data/postmaster.pid && printf '%%s' '%s' > /run/lock/dbmem-lab.journal",
		cluster, proc.Process.Pid, cluster, journal))
	code, out, stderr := runAs(t, nil, rootEnv, "lab", "--restore")
	if code != ExitOK || !strings.Contains(out, "nothing to restore") || !strings.Contains(stderr, "ignored "+hostchange.LegacyLabJournal) {
		t.Errorf("lab --restore with nobody's journal: exit %d\n%s%s", code, out, stderr)
	}
	if b, _ := os.ReadFile(victim); string(b) != "ORIGINAL\n" {
		t.Errorf("root wrote what nobody's journal said: %q", b)
	}
	if st, err := linux.ReadStat(linux.DefaultFS(), proc.Process.Pid); err != nil || st.State == "Z" {
		t.Errorf("root's process named by nobody's journal was stopped: %+v %v", st, err)
	}
	if _, err := os.Stat(cluster); err != nil {
		t.Errorf("nobody's directory was removed: %v", err)
	}

	holder := exec.Command("flock", "/run/lock/dbmem-apply.lock", "sleep", "600")
	holder.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: hostiletest.NobodyUID, Gid: hostiletest.NobodyGID, Groups: []uint32{}}}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	for end := time.Now().Add(2 * time.Minute); !holds("/run/lock/dbmem-apply.lock") && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
	}
	code, out, stderr = runAs(t, nil, rootEnv, "rollback", "--yes", "--journal-dir", t.TempDir())
	if strings.Contains(stderr, "is running and holds") || !strings.Contains(out+stderr, "nothing to roll back") {
		t.Errorf("rollback while nobody holds /run/lock/dbmem-apply.lock: exit %d\n%s%s", code, out, stderr)
	}
	if out, err := hostiletest.Nobody(t, "flock -n /run/dbmem/apply.lock true || mkdir /run/dbmem/x"); err == nil {
		t.Errorf("nobody reached into /run/dbmem: %s", out)
	}
	rewrites(t)
}

// holds reports whether a process holds a flock on path (/proc/locks).
func holds(path string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	b, _ := os.ReadFile("/proc/locks")
	ino := fmt.Sprintf(":%d ", st.Sys().(*syscall.Stat_t).Ino)
	return strings.Contains(string(b), ino)
}

// rewrites tries the attack around the fix: root's runtime directory and
// the journal in it in the shapes another user could want.
func rewrites(t *testing.T) {
	os.RemoveAll("/run/dbmem")
	if out, err := hostiletest.Nobody(t, "mkdir /run/dbmem"); err == nil {
		t.Errorf("nobody made /run/dbmem: %s", out)
	}
	theirs := hostiletest.SharedDir(t)
	os.Chown(theirs, hostiletest.NobodyUID, hostiletest.NobodyGID)
	os.Chmod(theirs, 0o700)
	cases := []struct {
		name, want string
		make       func()
	}{
		{"everyone may write /run/dbmem", "has mode 0777", func() { os.Mkdir("/run/dbmem", 0o700); os.Chmod("/run/dbmem", 0o777) }},
		{"/run/dbmem is nobody's", "is owned by uid 65534", func() {
			os.Mkdir("/run/dbmem", 0o700)
			os.Chown("/run/dbmem", hostiletest.NobodyUID, hostiletest.NobodyGID)
		}},
		{"/run/dbmem links to nobody's directory", "symbolic link owned by uid 65534", func() {
			os.Symlink(theirs, "/run/dbmem")
			os.Lchown("/run/dbmem", hostiletest.NobodyUID, hostiletest.NobodyGID)
		}},
		{"the journal is nobody's link", "is a symbolic link", func() {
			os.Mkdir("/run/dbmem", 0o700)
			os.Symlink("/etc/crontab", "/run/dbmem/lab.journal")
			os.Lchown("/run/dbmem/lab.journal", hostiletest.NobodyUID, hostiletest.NobodyGID)
		}},
		{"the journal is nobody's file", "owned by uid 65534", func() {
			os.Mkdir("/run/dbmem", 0o700)
			os.WriteFile("/run/dbmem/lab.journal", []byte("{}"), 0o600)
			os.Chown("/run/dbmem/lab.journal", hostiletest.NobodyUID, hostiletest.NobodyGID)
		}},
		{"others may write the journal", "mode 0666", func() {
			os.Mkdir("/run/dbmem", 0o700)
			os.WriteFile("/run/dbmem/lab.journal", []byte("{}"), 0o600)
			os.Chmod("/run/dbmem/lab.journal", 0o666)
		}},
	}
	for _, c := range cases {
		os.RemoveAll("/run/dbmem")
		c.make()
		code, out, stderr := runAs(t, nil, rootEnv, "lab", "--restore")
		if code == ExitOK || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "/run/dbmem") || !strings.Contains(stderr, "fix") {
			t.Errorf("%s: exit %d, want refused with %q, the path and the fix:\n%s%s", c.name, code, c.want, out, stderr)
		}
	}
	os.RemoveAll("/run/dbmem")
}
