package postgres_test

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
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/throwaway"
)

// TestDiscoverSkipsSingleUser: `postgres --single` waiting on its stdin
// (as initdb's and dbmem's own what-if runs are, for a moment) is a
// postgres process whose parent is not one, but not a server: Discover
// does not report it, while the running cluster next to it is reported.
func TestDiscoverSkipsSingleUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs postgres as the postgres user")
	}
	running := pgtest.Start(t, nil)
	idle := pgtest.Create(t, nil)
	cred, err := throwaway.Credential("postgres")
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(filepath.Join(idle.Bin, "postgres"), "--single", "-D", idle.DataDir, "postgres")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	waitComm(t, cmd.Process.Pid, "postgres")
	ins, _, err := postgres.Discover(context.Background(), linux.DefaultFS(), postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, in := range ins {
		if in.PostmasterPID == cmd.Process.Pid {
			t.Errorf("postgres --single (pid %d) reported as an instance: port %d, %s", in.PostmasterPID, in.Port, in.Connection)
		}
		found = found || in.PostmasterPID == running.PID
	}
	if !found {
		t.Errorf("the running cluster (postmaster %d) was not discovered", running.PID)
	}
}

// waitComm waits until pid has exec'd into a process named comm.
func waitComm(t *testing.T, pid int, comm string) {
	t.Helper()
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm")); err == nil && strings.TrimSpace(string(b)) == comm {
			return
		}
	}
	t.Fatalf("pid %d never became %s", pid, comm)
}
