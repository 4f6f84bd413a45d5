package apply

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/kerneltest"
	"github.com/dbmem/dbmem/internal/units"
)

// TestApplyAndRollbackRealKernel: dry run changes nothing; --yes sets
// vm.nr_hugepages and vm.swappiness for real, verifies them, writes the
// sysctl.d file and journals; rollback restores both values and removes
// the file and the directories it created.
func TestApplyAndRollbackRealKernel(t *testing.T) {
	cur := guard(t, "vm.swappiness", "vm.nr_hugepages")
	sw := other(cur["vm.swappiness"], "10", "11")
	pages := strconv.Itoa(atoi(t, cur["vm.nr_hugepages"]) + 4)
	o := testOptions(t)
	p, err := Prepare([]finding.Setting{setting("vm.swappiness", sw), setting("vm.nr_hugepages", pages)}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Refusals) > 0 || len(p.Live) != 2 || p.Live[0].Setting.Name != "vm.nr_hugepages" {
		t.Fatalf("plan: refusals %v, live %+v (the pool must come first)", p.Refusals, p.Live)
	}
	var out strings.Builder
	WritePlan(&out, p)
	file := filepath.Join(o.FilesRoot, "etc/sysctl.d/60-dbmem.conf")
	for _, want := range []string{"vm.nr_hugepages  " + cur["vm.nr_hugepages"] + " -> " + pages,
		"--- " + file + "\t(does not exist)", "+vm.swappiness = " + sw} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dry run does not show %q:\n%s", want, out.String())
		}
	}
	if readSysctl(t, "vm.swappiness") != cur["vm.swappiness"] || readSysctl(t, "vm.nr_hugepages") != cur["vm.nr_hugepages"] {
		t.Fatal("the dry run changed the kernel")
	}
	mustNotExist(t, file)
	mustNotExist(t, o.JournalDir)

	j, err := Run(p, o)
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != StatusDone || readSysctl(t, "vm.swappiness") != sw || readSysctl(t, "vm.nr_hugepages") != pages {
		t.Fatalf("after Run: status %s, swappiness %s, nr_hugepages %s", j.Status, readSysctl(t, "vm.swappiness"), readSysctl(t, "vm.nr_hugepages"))
	}
	if b, _ := os.ReadFile(file); string(b) != p.Files[0].Content {
		t.Errorf("%s holds %q", file, b)
	}
	saved, err := ReadJournal(j.Path)
	if err != nil || saved.Live[0].Old != cur["vm.nr_hugepages"] || saved.Live[1].Got != sw || !saved.Files[0].Done {
		t.Fatalf("journal %s: %+v %v", j.Path, saved, err)
	}

	rp, err := PrepareRollback(o, "")
	if err != nil {
		t.Fatal(err)
	}
	if rp.Undoes != j.ID || rp.Live[0].Setting.Name != "vm.swappiness" || !rp.Files[0].Remove {
		t.Fatalf("rollback plan: %+v", rp)
	}
	rj, err := Run(rp, o)
	if err != nil {
		t.Fatal(err)
	}
	if rj.Kind != "rollback" || readSysctl(t, "vm.swappiness") != cur["vm.swappiness"] || readSysctl(t, "vm.nr_hugepages") != cur["vm.nr_hugepages"] {
		t.Errorf("after rollback: %s swappiness %s nr_hugepages %s", rj.Status, readSysctl(t, "vm.swappiness"), readSysctl(t, "vm.nr_hugepages"))
	}
	mustNotExist(t, file)
	mustNotExist(t, o.FilesRoot)
	if _, err := PrepareRollback(o, ""); err == nil || !strings.Contains(err.Error(), "nothing to roll back") {
		t.Errorf("a second rollback: %v", err)
	}
}

// cappedPool passes writes to the real kernel but never lets a huge page
// pool grow beyond max pages: the kernel then really allocates only part
// of what apply asked for, as on fragmented memory. (Asking the real kernel
// for an impossible pool is not safe on a shared host: it allocates every
// page it can find before it gives up.)
type cappedPool struct {
	FileKernel
	path string
	max  int
}

func (k cappedPool) Write(path, value string) error {
	if n, err := strconv.Atoi(value); err == nil && path == k.path && n > k.max {
		value = strconv.Itoa(k.max)
	}
	return k.FileKernel.Write(path, value)
}

// TestPartialPoolIsRolledBack: the pool can grow by 4 pages of the 500
// asked; the run reports the numbers and the fix, and undoes the raised
// overcommit ratio applied before it; vm.swappiness (after it) is never set.
func TestPartialPoolIsRolledBack(t *testing.T) {
	if readSysctl(t, "vm.overcommit_memory") != "0" || readSysctl(t, "vm.overcommit_kbytes") != "0" {
		t.Skip("needs vm.overcommit_memory=0 and vm.overcommit_kbytes=0")
	}
	cur := guard(t, "vm.nr_hugepages", "vm.overcommit_ratio", "vm.swappiness")
	pool := "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
	n := atoi(t, cur["vm.nr_hugepages"])
	o := testOptions(t)
	o.Kernel = cappedPool{FileKernel{o.FS}, pool, n + 4}
	ratio := strconv.Itoa(atoi(t, cur["vm.overcommit_ratio"]) + 10)
	s := []finding.Setting{setting("vm.swappiness", other(cur["vm.swappiness"], "10", "11")),
		setting(pool, strconv.Itoa(n+500)), setting("vm.overcommit_ratio", ratio)}
	p, err := Prepare(s, o)
	if err != nil || len(p.Refusals) > 0 {
		t.Fatalf("prepare: %v %v", err, p.Refusals)
	}
	j, err := Run(p, o)
	var ve *VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("want a VerifyError, got %v", err)
	}
	t.Logf("the run reports: %v", err)
	for _, want := range []string{"asked the kernel for " + strconv.Itoa(n+500) + " huge pages, it could allocate only " + strconv.Itoa(n+4),
		"echo 1 > /proc/sys/vm/compact_memory", "at boot"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if j.Status != StatusRolledBack || len(j.Live) != 2 || j.Live[0].Setting.Name != "vm.overcommit_ratio" {
		t.Errorf("journal: %s %+v", j.Status, j.Live)
	}
	for name, v := range cur {
		if got := readSysctl(t, name); got != v {
			t.Errorf("%s is %s after the failed run, want %s", name, got, v)
		}
	}
	if _, err := PrepareRollback(o, ""); err == nil {
		t.Error("a run that undid itself should leave nothing to roll back")
	}
}

// TestRefusalsNeverReachTheKernel: strict overcommit with a ratio that
// puts CommitLimit below the real Committed_AS, and a pool larger than RAM,
// are refused with the numbers; the kernel is not touched. It holds the
// kernel test lock: the CommitLimit it expects counts the huge page pools,
// which another test may grow, and the values read before and after must
// be this test's alone.
func TestRefusalsNeverReachTheKernel(t *testing.T) {
	kerneltest.Lock(t)
	o := testOptions(t)
	mem, err := readHostMem(o.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	strict := mem
	strict.Ratio, strict.KBytes = 1, 0
	tooMany := strconv.FormatUint(mem.MemTotal/(2<<20)+1, 10)
	before := readSysctl(t, "vm.overcommit_memory") + readSysctl(t, "vm.overcommit_ratio") + readSysctl(t, "vm.nr_hugepages")
	for _, c := range []struct {
		s    []finding.Setting
		want []string
	}{
		{[]finding.Setting{setting("vm.overcommit_ratio", "1"), setting("vm.overcommit_memory", "2")},
			[]string{"vm.overcommit_memory=2: with vm.overcommit_memory=2, CommitLimit would be " + units.Bytes(strict.commitLimit()),
				"x 1/100", "below Committed_AS", "10% of RAM", "Fix: raise vm.overcommit_ratio to at least"}},
		{[]finding.Setting{setting("vm.nr_hugepages", tooMany)},
			[]string{"vm.nr_hugepages=" + tooMany + ": the huge page pools would take", "leaving 0 B for everything else", "Fix: at most"}},
	} {
		p, err := Prepare(c.s, o)
		if err != nil {
			t.Fatal(err)
		}
		text := ""
		for _, r := range p.Refusals {
			text += r.String() + "\n"
		}
		for _, want := range c.want {
			if !strings.Contains(text, want) {
				t.Errorf("refusals do not say %q:\n%s", want, text)
			}
		}
		if _, err := Run(p, o); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("Run of a refused plan: %v", err)
		}
	}
	after := readSysctl(t, "vm.overcommit_memory") + readSysctl(t, "vm.overcommit_ratio") + readSysctl(t, "vm.nr_hugepages")
	if before != after {
		t.Errorf("kernel values changed: %s -> %s", before, after)
	}
	mustNotExist(t, o.JournalDir)
}

// TestRefuseSettingsForAMissingEngine reads a process list without any
// database (a procfs root holding no processes).
func TestRefuseSettingsForAMissingEngine(t *testing.T) {
	proc := t.TempDir()
	b, _ := os.ReadFile("/proc/meminfo")
	os.WriteFile(filepath.Join(proc, "meminfo"), b, 0o644)
	os.Symlink("/proc/sys", filepath.Join(proc, "sys"))
	o := testOptions(t)
	o.FS.Proc, o.Engines, o.Postgres = proc, nil, true
	o.Render.PostgresConfDir = "/etc/postgresql/15/main/conf.d"
	p, err := Prepare([]finding.Setting{{Target: finding.TargetPostgres, Name: "huge_pages", Value: "on"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Refusals) != 1 || !strings.Contains(p.Refusals[0].Reason, "no PostgreSQL server runs on this host") {
		t.Errorf("refusals: %+v", p.Refusals)
	}
}

// TestRollbackFromANewProcess: the journal is all a later process needs.
func TestRollbackFromANewProcess(t *testing.T) {
	cur := guard(t, "vm.swappiness")
	o := testOptions(t)
	p, err := Prepare([]finding.Setting{setting("vm.swappiness", other(cur["vm.swappiness"], "10", "11"))}, o)
	if err != nil {
		t.Fatal(err)
	}
	j, err := Run(p, o)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRollback$", "-test.v")
	cmd.Env = append(os.Environ(), "DBMEM_TEST_ROLLBACK_JOURNALS="+o.JournalDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rollback in a new process: %v\n%s", err, out)
	}
	if got := readSysctl(t, "vm.swappiness"); got != cur["vm.swappiness"] {
		t.Errorf("vm.swappiness is %s after the other process's rollback, want %s\n%s", got, cur["vm.swappiness"], out)
	}
	mustNotExist(t, j.Files[0].Path)
	all, err := Journals(o.JournalDir)
	if err != nil || len(all) != 2 || all[1].Undoes != j.ID || all[1].Status != StatusDone {
		t.Errorf("journals after the rollback: %v %v", all, err)
	}
}

// TestHelperRollback runs as the new process of TestRollbackFromANewProcess.
func TestHelperRollback(t *testing.T) {
	dir := os.Getenv("DBMEM_TEST_ROLLBACK_JOURNALS")
	if dir == "" {
		t.Skip("runs only as the helper of TestRollbackFromANewProcess")
	}
	p, err := PrepareRollback(Options{JournalDir: dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	j, err := Run(p, Options{JournalDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	WriteJournal(os.Stdout, j)
}
