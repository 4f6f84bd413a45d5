package lab

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

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/kerneltest"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/treetest"
)

// fakeKernel is a procfs root with plain files for the overcommit
// settings and meminfo: the strict overcommit guard is tested on them
// without touching the host.
func fakeKernel(t *testing.T) linux.FS {
	t.Helper()
	root := t.TempDir()
	treetest.Write(t, root, map[string]string{
		"sys/vm/overcommit_memory": "0\n", "sys/vm/overcommit_ratio": "50\n", "sys/vm/overcommit_kbytes": "0\n",
		"meminfo": "MemTotal: 24683656 kB\nMemAvailable: 23000000 kB\nSwapTotal: 0 kB\nCommitLimit: 12341828 kB\nCommitted_AS: 3000000 kB\n",
	})
	return linux.FS{Proc: root, Sys: root, Root: root}
}

func value(t *testing.T, fs linux.FS, name string) string {
	t.Helper()
	v, err := hostchange.Read(fs.SysctlPath(name))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// armedGuard sets strict overcommit on the fake kernel as the protected
// run does, journaled.
func armedGuard(t *testing.T, fs linux.FS, journal string) (*oomRun, *strictGuard) {
	t.Helper()
	r := newOOMRun(OOMOptions{Common: Common{FS: fs, JournalPath: journal}})
	r.jr = testJournal(t, journal)
	g := &strictGuard{fs: fs, headroom: DefaultHeadroom, run: &OOMRun{}}
	if err := g.apply(r, StrictPlan{ModeBefore: "0", RatioBefore: "50", Ratio: 31}); err != nil {
		t.Fatal(err)
	}
	if value(t, fs, "vm.overcommit_memory") != "2" || value(t, fs, "vm.overcommit_ratio") != "31" {
		t.Fatalf("not set: mode %s ratio %s", value(t, fs, "vm.overcommit_memory"), value(t, fs, "vm.overcommit_ratio"))
	}
	j := loadJournal(journal)
	if j == nil || len(j.Entries) != 2 || j.Entries[1].Kernel == nil || j.Entries[1].Kernel.Set != "2" {
		t.Fatalf("journal %+v: want the ratio, then the mode", j)
	}
	return r, g
}

// TestStrictGuardRestoresOnEveryPath: the guard puts both settings back
// as soon as the query ends; a run killed while they were set is undone
// by the next run's replay of the journal; a value someone else changed
// meanwhile is left alone and reported.
func TestStrictGuardRestoresOnEveryPath(t *testing.T) {
	fs := fakeKernel(t)
	journal := filepath.Join(t.TempDir(), "lab.journal")
	_, g := armedGuard(t, fs, journal)
	if err := g.disarm(); err != nil || value(t, fs, "vm.overcommit_memory") != "0" || value(t, fs, "vm.overcommit_ratio") != "50" {
		t.Errorf("disarm: %v; mode %s ratio %s", err, value(t, fs, "vm.overcommit_memory"), value(t, fs, "vm.overcommit_ratio"))
	}
	if g.run.Commit == nil || g.run.Commit.Samples == 0 {
		t.Errorf("the commit headroom was not watched: %+v", g.run.Commit)
	}
	if err := g.disarm(); err != nil {
		t.Errorf("second disarm: %v", err)
	}
	armedGuard(t, fs, journal) // then killed: only the journal is left
	done, err := hostchange.Replay(fs, journal)
	if err != nil || len(done) != 2 || !strings.HasSuffix(done[0].What, "overcommit_memory") {
		t.Errorf("replay: %+v, %v; want the mode, then the ratio", done, err)
	}
	if value(t, fs, "vm.overcommit_memory") != "0" || value(t, fs, "vm.overcommit_ratio") != "50" {
		t.Errorf("after replay: mode %s ratio %s", value(t, fs, "vm.overcommit_memory"), value(t, fs, "vm.overcommit_ratio"))
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("journal left after replay: %v", err)
	}
	_, g = armedGuard(t, fs, journal)
	hostchange.Write(fs.SysctlPath("vm.overcommit_memory"), "1")
	if err := g.disarm(); err == nil || !strings.Contains(err.Error(), "someone else") || value(t, fs, "vm.overcommit_memory") != "1" {
		t.Errorf("a value changed by someone else: %v, mode %s; want it left and reported", err, value(t, fs, "vm.overcommit_memory"))
	}
}

// TestKilledOOMRunIsRestored kills `lab oom` with SIGKILL while its server
// runs in its memory cgroup; Restore (what the next `dbmem lab` or `dbmem
// lab --restore` runs) must stop the server and remove the cgroup.
func TestKilledOOMRunIsRestored(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("dbmem lab oom needs root")
	}
	kerneltest.Lock(t)
	base, jpath := labDirs(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestOOMHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "DBMEM_LAB_OOM_HELPER=1", "DBMEM_LAB_BASE="+base, "DBMEM_LAB_JOURNAL="+jpath)
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
	for _, x := range done {
		t.Logf("restored %+v", x)
	}
	if err != nil || len(done) != 2 {
		t.Fatalf("restore: %v (%+v); want the cluster and the cgroup", err, done)
	}
	if n := len(postmastersUnder(t, base)); n != 0 {
		t.Errorf("%d postmasters left", n)
	}
	if _, err := os.Stat(cg); !os.IsNotExist(err) {
		t.Errorf("memory cgroup %s left: %v", cg, err)
	}
	if _, err := os.Stat(jpath); !os.IsNotExist(err) {
		t.Errorf("journal left: %v", err)
	}
}

// servingInCgroup returns the journal's cgroup once it holds the
// cluster's journaled postmaster ("" until then).
func servingInCgroup(path string) string {
	j := loadJournal(path)
	if j == nil {
		return ""
	}
	c, g, _ := journaled(j)
	if c == nil || g == nil || c.Postmaster == nil {
		return ""
	}
	b, _ := os.ReadFile(filepath.Join(g.Dir, "cgroup.procs"))
	if !strings.Contains("\n"+string(b), "\n"+strconv.Itoa(c.Postmaster.PID)+"\n") {
		return ""
	}
	return g.Dir
}

// TestOOMHelperProcess is the `lab oom` run TestKilledOOMRunIsRestored kills.
func TestOOMHelperProcess(t *testing.T) {
	if os.Getenv("DBMEM_LAB_OOM_HELPER") != "1" {
		t.Skip("helper process for TestKilledOOMRunIsRestored")
	}
	RunOOM(context.Background(), OOMOptions{Common: Common{Quick: true, BaseDir: os.Getenv("DBMEM_LAB_BASE"), JournalPath: os.Getenv("DBMEM_LAB_JOURNAL")}, Before: time.Minute})
}

// panicAt panics when a step starting with prefix begins: a bug in the
// middle of a run.
type panicAt struct {
	nopProgress
	prefix string
}

func (p panicAt) Begin(step string, _ int) {
	if strings.HasPrefix(step, p.prefix) {
		panic("injected at " + step)
	}
}

// TestInterruptedOOMRunRestores interrupts `lab oom` while its server runs
// in the cgroup, by Ctrl-C (the context) and by a panic: the cluster, the
// cgroup and the journal must be gone either way.
func TestInterruptedOOMRunRestores(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("dbmem lab oom needs root")
	}
	kerneltest.Lock(t)
	for _, how := range []string{"cancel", "panic"} {
		t.Run(how, func(t *testing.T) {
			base, jpath := labDirs(t)
			before := readOOMHostState(t, base, jpath)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			o := OOMOptions{Common: Common{Quick: true, BaseDir: base, JournalPath: jpath}}
			o.Progress = cancelAt{prefix: "unprotected: pgbench", cancel: cancel}
			if how == "panic" {
				o.Progress = panicAt{prefix: "unprotected: pgbench"}
			}
			var res *OOMResult
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						err = nil
						t.Logf("recovered: %v", p)
					}
				}()
				res, err = RunOOM(ctx, o)
				if err == nil {
					t.Errorf("lab oom ran to the end: the interruption point was never reached")
				}
			}()
			if after := readOOMHostState(t, base, jpath); after != before {
				t.Errorf("host not restored after %s: before %+v, after %+v", how, before, after)
			}
			if res != nil && res.Cgroup != nil {
				if _, err := os.Stat(res.Cgroup.Dir); !os.IsNotExist(err) {
					t.Errorf("memory cgroup left: %v", err)
				}
			}
		})
	}
}
