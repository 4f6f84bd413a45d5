package lab

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/kerneltest"
)

// TestKilledBudgetRunIsRestored kills `lab budget` with SIGKILL while its
// server runs in its memory cgroup; Restore (what the next `dbmem lab` or
// `dbmem lab --restore` runs) must stop the server and remove the cluster
// and the cgroup.
func TestKilledBudgetRunIsRestored(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("dbmem lab budget needs root")
	}
	kerneltest.Lock(t)
	base, jpath := labDirs(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestBudgetHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "DBMEM_LAB_BUDGET_HELPER=1", "DBMEM_LAB_BASE="+base, "DBMEM_LAB_JOURNAL="+jpath)
	cmd.Stdout, cmd.Stderr = testLog{t}, testLog{t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var cg string
	if !waitFor(3*time.Minute, func() bool { cg = servingInCgroup(jpath); return cg != "" }) {
		t.Fatal("the helper never ran a server in its memory cgroup")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if len(postmastersUnder(t, base)) == 0 {
		t.Fatal("the killed lab's server is gone already: nothing left to restore")
	}
	done, _, err := Restore(context.Background(), linuxFS(), jpath, "")
	if err != nil || len(done) != 2 {
		t.Fatalf("restore: %v (%+v); want the cluster and the cgroup", err, done)
	}
	if n := len(postmastersUnder(t, base)); n != 0 {
		t.Errorf("%d postmasters left", n)
	}
	if _, err := os.Stat(cg); !os.IsNotExist(err) {
		t.Errorf("memory cgroup %s left: %v", cg, err)
	}
	if ents, _ := os.ReadDir(base); len(ents) != 0 {
		t.Errorf("cluster directory left in %s: %v", base, ents)
	}
	if _, err := os.Stat(jpath); !os.IsNotExist(err) {
		t.Errorf("journal left: %v", err)
	}
}

// TestBudgetHelperProcess is the `lab budget` run TestKilledBudgetRunIsRestored kills.
func TestBudgetHelperProcess(t *testing.T) {
	if os.Getenv("DBMEM_LAB_BUDGET_HELPER") != "1" {
		t.Skip("helper process for TestKilledBudgetRunIsRestored")
	}
	RunBudget(context.Background(), BudgetOptions{Common: Common{Quick: true, BaseDir: os.Getenv("DBMEM_LAB_BASE"), JournalPath: os.Getenv("DBMEM_LAB_JOURNAL")}})
}

// TestInterruptedBudgetRunRestores cancels `lab budget` (SIGINT and
// SIGTERM cancel the context in cmd/dbmem) while its server runs the
// workload in the cgroup: the cluster, the cgroup and the journal must be
// gone, and the result says what was restored.
func TestInterruptedBudgetRunRestores(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("dbmem lab budget needs root")
	}
	kerneltest.Lock(t)
	base, jpath := labDirs(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := BudgetOptions{Common: Common{Quick: true, BaseDir: base, JournalPath: jpath, Progress: cancelAt{prefix: "measure dbmem's budget", cancel: cancel}}}
	res, err := RunBudget(ctx, o)
	if err == nil {
		t.Fatal("lab budget ran to the end: the interruption point was never reached")
	}
	t.Logf("interrupted: %v", err)
	checkBudgetRestored(t, res, base, jpath)
}
