package dblog

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/throwaway"
)

// TestRootLiveMariaDBKilledAndRestarted (root only) starts a throwaway
// mariadbd (own data directory, free port), SIGKILLs it, starts it again and
// parses the error log. It never touches the host's MariaDB service.
func TestRootLiveMariaDBKilledAndRestarted(t *testing.T) {
	dir := mariadbDir(t)
	errLog := filepath.Join(dir, "error.log")
	first := startMariaDB(t, dir, errLog, 1)
	// Writes that are not yet checkpointed make the restart recover.
	sql := "CREATE DATABASE d; USE d; CREATE TABLE t (a int) ENGINE=InnoDB; INSERT INTO t SELECT seq FROM seq_1_to_200000"
	if out, err := exec.Command("mariadb", "--no-defaults", "--socket="+filepath.Join(dir, "sock"), "-e", sql).CombinedOutput(); err != nil {
		t.Fatalf("mariadb: %v: %s", err, out)
	}
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	second := startMariaDB(t, dir, errLog, 2)
	second.Process.Signal(syscall.SIGTERM)
	second.Wait()
	b, err := os.ReadFile(errLog)
	if err != nil {
		t.Fatal(err)
	}
	crashes, err := ParseMySQL(strings.NewReader(string(b)))
	if err != nil || len(crashes) != 1 {
		t.Fatalf("crashes %+v (%v):\n%s", crashes, err, b)
	}
	c := crashes[0]
	if pv(c.KilledPID) != first.Process.Pid || pv(c.ServerPID) != second.Process.Pid || c.ReadyAt.IsZero() || c.RecoveryAt.IsZero() || c.Incomplete {
		t.Errorf("crash = %+v, want killed %d restarted as %d", c, first.Process.Pid, second.Process.Pid)
	}
	if *record {
		writeFile(t, filepath.Join("testdata", "mariadb-10.11-sigkill-restart-error.log"), string(b))
	}
}

func mariadbDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("starting mariadbd as the mysql user needs root")
	}
	owner, err := throwaway.Credential("mysql")
	if _, lerr := exec.LookPath("mariadbd"); err != nil || lerr != nil {
		t.Skip("mariadbd or the mysql user is missing")
	}
	dir, err := throwaway.Dir("", "dbmem-mariadb-", owner)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	out, err := exec.Command("mariadb-install-db", "--no-defaults", "--datadir="+filepath.Join(dir, "data"),
		"--user=mysql", "--skip-test-db", "--auth-root-authentication-method=normal").CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	return dir
}

// startMariaDB starts mariadbd and waits for its n-th "ready for connections".
func startMariaDB(t *testing.T, dir, errLog string, n int) *exec.Cmd {
	t.Helper()
	port, err := throwaway.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("mariadbd", "--no-defaults", "--user=mysql", "--datadir="+filepath.Join(dir, "data"),
		"--socket="+filepath.Join(dir, "sock"), "--port="+strconv.Itoa(port), "--bind-address=127.0.0.1",
		"--log-error="+errLog, "--pid-file="+filepath.Join(dir, "pid"), "--innodb-buffer-pool-size=16M", "--skip-grant-tables")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		b, _ := os.ReadFile(errLog)
		if strings.Count(string(b), "ready for connections") >= n {
			return cmd
		}
	}
	b, _ := os.ReadFile(errLog)
	t.Fatalf("mariadbd not ready:\n%s", b)
	return nil
}

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s", p)
}
