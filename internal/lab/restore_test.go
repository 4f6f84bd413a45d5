package lab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/kerneltest"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/treetest"
)

// tinyOptions is the smallest experiment: enough to grow the pool and start
// a server with huge pages.
func tinyOptions(base, journal string) Options {
	return Options{SharedBuffersBytes: 128 << 20, Connections: 2, NoBench: true, Common: Common{BaseDir: base, JournalPath: journal},
		Settle: SettleOptions{Interval: 50 * time.Millisecond, Window: 200 * time.Millisecond, Max: 500 * time.Millisecond}}
}

// cancelAt cancels the run when a step starting with prefix begins, as
// Ctrl-C would.
type cancelAt struct {
	nopProgress
	prefix string
	cancel context.CancelFunc
}

func (c cancelAt) Begin(step string, _ int) {
	if strings.HasPrefix(step, c.prefix) {
		c.cancel()
	}
}

// TestCancelRestores interrupts the lab while the server runs on the grown
// huge page pool: the pool, the cluster and the journal must be gone.
func TestCancelRestores(t *testing.T) {
	kerneltest.Lock(t)
	base, journal := labDirs(t)
	before := readHostState(t, base, journal)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := tinyOptions(base, journal)
	o.Progress = cancelAt{prefix: "huge_pages=on: prewarm", cancel: cancel}
	res, err := Run(ctx, o)
	if err == nil || ctx.Err() == nil {
		t.Fatalf("lab ran to the end (err %v): the cancellation point was never reached", err)
	}
	t.Logf("interrupted: %v", err)
	if res.Pool == nil || res.Pool.Set == res.Pool.Before {
		t.Fatalf("the pool was never grown (%+v): the test did not interrupt a run holding huge pages", res.Pool)
	}
	if after := readHostState(t, base, journal); after != before {
		t.Errorf("host not restored after Ctrl-C: before %+v, after %+v", before, after)
	}
	checkRestored(t, res, base)
}

// TestKilledRunIsRestored kills a lab run with SIGKILL while its server runs
// with huge pages; Restore (what the next `dbmem lab` or `dbmem lab
// --restore` runs) must stop that server and restore the pool.
func TestKilledRunIsRestored(t *testing.T) {
	kerneltest.Lock(t)
	base, journal := labDirs(t)
	before := readHostState(t, base, journal)
	cmd := exec.Command(os.Args[0], "-test.run=^TestLabHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "DBMEM_LAB_HELPER=1", "DBMEM_LAB_BASE="+base, "DBMEM_LAB_JOURNAL="+journal)
	cmd.Stdout, cmd.Stderr = testLog{t}, testLog{t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if !waitFor(3*time.Minute, func() bool { return poolGrownAndServing(journal) }) {
		t.Fatal("the helper lab never started a server on a grown pool")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if len(postmastersUnder(t, base)) == 0 {
		t.Fatal("the killed lab's server is gone already: nothing left to restore")
	}
	done, _, err := Restore(context.Background(), linuxFS(), journal, "")
	if err != nil {
		t.Fatalf("restore: %v (%+v)", err, done)
	}
	for _, x := range done {
		t.Logf("restored %+v", x)
	}
	if after := readHostState(t, base, journal); after != before {
		for _, pid := range postmastersUnder(t, base) {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			t.Logf("left: %s", b)
		}
		t.Errorf("host not restored after a killed run: before %+v, after %+v", before, after)
	}
	if done, _, err := Restore(context.Background(), linuxFS(), journal, ""); err != nil || len(done) != 0 {
		t.Errorf("second restore: %+v, %v; want nothing to do", done, err)
	}
}

// TestLabHelperProcess is the lab run TestKilledRunIsRestored kills.
func TestLabHelperProcess(t *testing.T) {
	if os.Getenv("DBMEM_LAB_HELPER") != "1" {
		t.Skip("helper process for TestKilledRunIsRestored")
	}
	o := tinyOptions(os.Getenv("DBMEM_LAB_BASE"), os.Getenv("DBMEM_LAB_JOURNAL"))
	o.Modes = []Mode{ModeOn}
	o.Connections = 200 // keeps the huge_pages=on server busy until killed
	o.Settle.Max = 5 * time.Second
	Run(context.Background(), o)
}

// poolGrownAndServing: the journal holds the pool change and the cluster's
// postmaster runs.
func poolGrownAndServing(journal string) bool {
	j := loadJournal(journal)
	if j == nil {
		return false
	}
	c, _, ks := journaled(j)
	return len(ks) > 0 && c != nil && c.Postmaster != nil && c.Postmaster.Running(linuxFS())
}

func waitFor(d time.Duration, f func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if f() {
			return true
		}
	}
	return false
}

// TestTopUpWhenPagesTaken: another server took free pages of the lab's
// pool; the lab adds as many back (journaled first, at most the cluster's
// need in all), says so, and the
// journal restores the pool to its value before the lab. The fake kernel
// keeps saying the pages are taken, so the check still fails, naming them.
func TestTopUpWhenPagesTaken(t *testing.T) {
	root := t.TempDir()
	treetest.Write(t, root, map[string]string{"sys/vm/nr_hugepages": "536\n",
		"meminfo": "MemTotal: 24683656 kB\nMemFree: 20000000 kB\nMemAvailable: 22000000 kB\nHugePages_Total: 536\nHugePages_Free: 464\nHugePages_Rsvd: 0\nHugePages_Surp: 0\nHugepagesize: 2048 kB\n"})
	fs := linux.FS{Proc: root, Sys: root, Root: root}
	path := fs.SysctlPath("vm.nr_hugepages")
	journal := filepath.Join(t.TempDir(), "lab.journal")
	r := newRun(Options{Common: Common{FS: fs, JournalPath: journal}})
	r.pages = 536
	r.jr = testJournal(t, journal)
	r.jr.Entries = []hostchange.Entry{{Kernel: &hostchange.Kernel{Setting: poolSetting, Before: "0", Set: "536"}}}
	r.res.Pool = &PoolChange{Needed: 536, Before: 0, Set: 536}
	err := r.checkPoolFree()
	if err == nil || !strings.Contains(err.Error(), "has 464 pages free") {
		t.Errorf("check: %v", err)
	}
	if v, _ := hostchange.Read(path); v != "608" || r.res.Pool.TopUp != 72 || r.res.Pool.Set != 608 || len(r.res.Notes) != 1 {
		t.Errorf("pool %s, change %+v, notes %q; want 72 pages added back", v, r.res.Pool, r.res.Notes)
	}
	for i := 0; i < 10; i++ {
		r.checkPoolFree()
	}
	if r.res.Pool.TopUp != 7*72 {
		t.Errorf("top-ups %+v: want them to stop before they pass the cluster's need, 536 pages", r.res.Pool)
	}
	done, err := hostchange.Replay(fs, journal)
	if v, _ := hostchange.Read(path); err != nil || v != "0" || len(done) != 1 {
		t.Errorf("replay: %+v, %v; pool %s, want 0", done, err, v)
	}
}
