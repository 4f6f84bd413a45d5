package pooler_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/throwaway"
)

// startFakeBouncer runs internal/cli/testdata/rogue as a process named
// pgbouncer, by nobody: it listens on DIR/.s.PGSQL.PORT, asks every
// client for an md5 password and records every byte it receives.
func startFakeBouncer(t *testing.T) (dir string, pid int) {
	t.Helper()
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
	bin, err := throwaway.Dir("", "dbmem-fakebouncer-bin-", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(bin) })
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "pgbouncer"), "../cli/testdata/rogue").CombinedOutput(); err != nil {
		t.Fatalf("build the fake pgbouncer: %v\n%s", err, out)
	}
	if dir, err = throwaway.Dir("", "dbmem-fakebouncer-", nobody); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	port, err := throwaway.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "pgbouncer"), "-D", dir, "-p", strconv.Itoa(port))
	cmd.Args[0] = "pgbouncer"
	cmd.Env, cmd.Dir = []string{"ROGUE_AUTH=md5"}, "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: nobody}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			return dir, cmd.Process.Pid
		}
		if time.Now().After(end) {
			t.Fatal("the fake pgbouncer never became ready")
		}
	}
}

// TestFakeBouncerGetsNoPassword: a process named pgbouncer run by nobody,
// that asks for a password, is asked over its proven socket (through the
// helper as nobody, and directly as root) and receives no password in any
// form; its configuration (a directory given as the file) is said, not
// guessed.
func TestFakeBouncerGetsNoPassword(t *testing.T) {
	const secret = "pooler-s3cret-never-sent"
	t.Setenv("PGPASSWORD", secret)
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".pgpass"), []byte("*:*:*:*:"+secret+"\n"), 0o600)
	t.Setenv("HOME", home)
	dir, pid := startFakeBouncer(t)
	for _, helper := range []bool{true, false} {
		c := pooler.Connector{}
		if helper {
			c.Helper = pooler.NewHelper()
		}
		found, _, err := pooler.Discover(context.Background(), linux.DefaultFS(), pooler.Options{Console: c})
		if err != nil {
			t.Fatal(err)
		}
		var p *pooler.Pooler
		for _, f := range found {
			if f.PID == pid {
				p = f
			}
		}
		if p == nil {
			t.Fatalf("the fake pgbouncer %d was not found", pid)
		}
		if p.Console != nil || !strings.Contains(p.Connection, "not connected") || !p.Refused {
			t.Errorf("helper %v: connection %q, refused %v", helper, p.Connection, p.Refused)
		}
		t.Logf("helper %v: %s; problems %v", helper, p.Connection, p.Problems)
	}
	var rec, events []byte
	names, _ := filepath.Glob(filepath.Join(dir, "record.*"))
	for _, n := range names {
		b, _ := os.ReadFile(n)
		rec = append(rec, b...)
	}
	events, _ = os.ReadFile(filepath.Join(dir, "events"))
	if strings.Contains(string(rec), secret) || strings.Contains(string(events), "message p ") {
		t.Errorf("the fake pgbouncer received a password:\n%s", events)
	}
	if strings.Count(string(events), "startup ") < 2 || !strings.Contains(string(events), "database pgbouncer") {
		t.Errorf("the fake was not asked twice for the console:\n%s", events)
	}
}
