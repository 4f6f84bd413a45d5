package hostchange

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/treetest"
)

// fakeKernel is a procfs and sysfs root of plain files: replay is tested
// on it without touching the host. 24 GiB of RAM, 2 MiB huge pages.
func fakeKernel(t *testing.T) linux.FS {
	t.Helper()
	root := t.TempDir()
	treetest.Write(t, root, map[string]string{
		"sys/vm/swappiness": "60\n", "sys/vm/nr_hugepages": "0\n", "sys/vm/overcommit_memory": "0\n", "sys/vm/overcommit_ratio": "50\n",
		"sys/vm/hugetlb_shm_group": "0\n", "sys/vm/zone_reclaim_mode": "0\n", "sys/kernel/shmmax": "18446744073692774399\n",
		"sys/kernel/core_pattern": "core\n", "power/state": "freeze mem\n",
		"kernel/mm/transparent_hugepage/enabled": "always [madvise] never\n",
		"meminfo":                                "MemTotal: 25165824 kB\nMemAvailable: 20000000 kB\nSwapTotal: 0 kB\nCommitLimit: 4000000 kB\nCommitted_AS: 3000000 kB\nHugepagesize: 2048 kB\nHugetlb: 0 kB\n",
		"etc/group":                              "root:x:0:\npostgres:x:114:\n",
	})
	return linux.FS{Proc: root, Sys: root, Root: root}
}

func value(t *testing.T, fs linux.FS, s Setting) string {
	t.Helper()
	v, err := Read(s.Path(fs))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func journalOf(t *testing.T, entries ...Entry) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lab.journal")
	j, err := NewJournal(path, "test")
	if err != nil {
		t.Fatal(err)
	}
	j.Entries = entries
	if err := j.Save(); err != nil {
		t.Fatal(err)
	}
	return path
}

func kernel(s Setting, before, set string) Entry {
	return Entry{Kernel: &Kernel{Setting: s, Before: before, Set: set}}
}

// TestReplayWritesOnlyWhatDbmemCouldHave: a journal (root's own, as if
// forged or damaged) naming settings dbmem never changes, or allowlisted
// settings with values that would hurt the host, changes none of them,
// says why, and is kept; the one sound entry is restored.
func TestReplayWritesOnlyWhatDbmemCouldHave(t *testing.T) {
	fs := fakeKernel(t)
	sysfs := func(name string) Setting { return Setting{Target: TargetSysfs, Name: name} }
	bad := map[Entry]string{
		kernel(Sysctl("kernel.core_pattern"), "|/tmp/x %p", ""):              "not one dbmem plans",
		kernel(sysfs("power/state"), "mem", ""):                              "not a file dbmem plans",
		kernel(Setting{Target: "file", Name: "/etc/crontab"}, "x", ""):       "not a kernel setting target",
		kernel(Sysctl("vm.swappiness"), "5000", ""):                          "from 0 to 200",
		kernel(Sysctl("vm.nr_hugepages"), "100000", ""):                      "would leave less than",
		kernel(Sysctl("vm.overcommit_memory"), "2", ""):                      "strict overcommit",
		kernel(Sysctl("vm.hugetlb_shm_group"), "65534", ""):                  "not a group",
		kernel(Sysctl("kernel.shmmax"), "4096", ""):                          "would go down",
		kernel(sysfs("kernel/mm/transparent_hugepage/enabled"), "bogus", ""): "not a word the file offers",
	}
	entries := []Entry{kernel(Sysctl("vm.zone_reclaim_mode"), "1", "0")}
	for e := range bad {
		entries = append(entries, e)
	}
	path := journalOf(t, entries...)
	before := snapshot(t, fs)
	done, err := Replay(fs, path)
	if err == nil || !strings.Contains(err.Error(), "journal kept") {
		t.Errorf("replay: %v, want the journal kept", err)
	}
	for e, want := range bad {
		r := find(done, e.Kernel.Setting.String())
		if r == nil || r.OK || !strings.Contains(r.Error, want) {
			t.Errorf("%s=%s: %+v, want refused: %q", e.Kernel.Setting, e.Kernel.Before, r, want)
		}
	}
	if v := value(t, fs, Sysctl("vm.zone_reclaim_mode")); v != "1" {
		t.Errorf("the sound entry was not restored: vm.zone_reclaim_mode %s", v)
	}
	before["sys/vm/zone_reclaim_mode"] = "1"
	if after := snapshot(t, fs); !equal(before, after) {
		t.Errorf("files changed:\nbefore %v\nafter  %v", before, after)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("journal removed: %v", err)
	}
}

func find(done []Undone, what string) *Undone {
	for i := range done {
		if done[i].What == what {
			return &done[i]
		}
	}
	return nil
}

func snapshot(t *testing.T, fs linux.FS) map[string]string {
	out := map[string]string{}
	filepath.Walk(fs.Proc, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			rel, _ := filepath.Rel(fs.Proc, p)
			out[rel] = readString(t, p)
		}
		return nil
	})
	return out
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if strings.TrimSpace(b[k]) != strings.TrimSpace(v) {
			return false
		}
	}
	return true
}

// TestKernelUndo restores what dbmem set, says so when it is back
// already, and leaves a value someone else set since.
func TestKernelUndo(t *testing.T) {
	fs := fakeKernel(t)
	pool := Sysctl("vm.nr_hugepages")
	k := Kernel{Setting: pool, Before: "3", Set: "2112"}
	Write(pool.Path(fs), "2112")
	if r := k.Undo(fs); !r.OK || r.After != "3" || value(t, fs, pool) != "3" {
		t.Errorf("set value: %+v, file %s, want 3 restored", r, value(t, fs, pool))
	}
	if r := k.Undo(fs); !r.OK {
		t.Errorf("already restored: %+v", r)
	}
	Write(pool.Path(fs), "4000")
	if r := k.Undo(fs); r.OK || !strings.Contains(r.Error, "someone else") || value(t, fs, pool) != "4000" {
		t.Errorf("changed by someone else: %+v, file %s", r, value(t, fs, pool))
	}
	thp := Setting{Target: TargetSysfs, Name: "kernel/mm/transparent_hugepage/enabled"}
	if r := (Kernel{Setting: thp, Before: "always"}).Undo(fs); !r.OK || value(t, fs, thp) != "always" {
		t.Errorf("a choice word: %+v, file %q", r, value(t, fs, thp))
	}
}

// TestReplayLeavesARunningOwner: a journal whose writer still runs is
// left alone.
func TestReplayLeavesARunningOwner(t *testing.T) {
	fs := fakeKernel(t)
	sleep := exec.Command("sleep", "600")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleep.Process.Kill(); sleep.Wait() }()
	owner, err := ProcessOf(linux.DefaultFS(), sleep.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	path := journalOf(t, kernel(Sysctl("vm.swappiness"), "10", ""))
	j, _, _ := LoadJournal(path)
	j.Owner.Process = owner
	j.Save()
	if _, err := Replay(fs, path); err == nil || !strings.Contains(err.Error(), "still running") || value(t, fs, Sysctl("vm.swappiness")) != "60" {
		t.Errorf("replay of a running owner's journal: %v, swappiness %s", err, value(t, fs, Sysctl("vm.swappiness")))
	}
}

// TestCgroupOnlyTheLabs: a cgroup entry is acted on only for a group the
// lab makes, named after the journal owner's pid, with its inode.
func TestCgroupOnlyTheLabs(t *testing.T) {
	fs := fakeKernel(t)
	parent := fs.SysPath("fs", "cgroup", "system.slice")
	owner := Process{PID: 4242}
	mine := filepath.Join(parent, CgroupPrefix+"4242")
	for dir, want := range map[string]string{
		filepath.Join(parent, "postgresql.service"):        "not a memory cgroup the lab makes",
		filepath.Join(parent, CgroupPrefix+"1"):            "not a memory cgroup the lab makes",
		filepath.Join(fs.Root, "etc", CgroupPrefix+"4242"): "not a memory cgroup the lab makes",
	} {
		os.MkdirAll(dir, 0o755)
		g := &Cgroup{Dir: dir, Parent: filepath.Dir(dir)}
		if r := g.undo(fs, owner); r.OK || !strings.Contains(r.Error, want) {
			t.Errorf("%s: %+v, want %q", dir, r, want)
		}
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s removed", dir)
		}
	}
	os.MkdirAll(mine, 0o755)
	g := &Cgroup{Dir: mine, Parent: parent}
	g.Made()
	os.Remove(mine)
	os.Mkdir(mine, 0o755) // another group of the same name since
	if r := g.undo(fs, owner); r.OK || !strings.Contains(r.Error, "not the group the lab made") {
		t.Errorf("a group made again: %+v", r)
	}
	g.Made()
	if r := g.undo(fs, owner); !r.OK {
		t.Errorf("the lab's group: %+v", r)
	}
	if _, err := os.Stat(mine); !os.IsNotExist(err) {
		t.Errorf("the lab's group is left: %v", err)
	}
}

// startIn starts exe with args working in dir and returns its identity.
func startIn(t *testing.T, dir, exe string, args ...string) (*exec.Cmd, Process) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var p Process
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		var err error
		if p, err = ProcessOf(linux.DefaultFS(), cmd.Process.Pid); err == nil && p.Exe != "" && !strings.HasSuffix(p.Exe, "/dbmem") && filepath.Base(p.Exe) != filepath.Base(os.Args[0]) {
			return cmd, p
		}
	}
	t.Fatalf("pid %d never ran %s", cmd.Process.Pid, exe)
	return nil, p
}

func alive(cmd *exec.Cmd) bool {
	st, err := linux.ReadStat(linux.DefaultFS(), cmd.Process.Pid)
	return err == nil && st.State != "Z"
}

// fakeBin is a PostgreSQL binary directory whose postgres is a copy of
// sleep: a process the kernel says runs Bin/postgres.
func fakeBin(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	b, err := os.ReadFile("/bin/sleep")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "postgres"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// clusterDir makes a throwaway cluster's directory as pgcluster does.
func clusterDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", ClusterPrefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Mkdir(filepath.Join(dir, "data"), 0o700)
	return dir
}

// TestReplayStopsOnlyTheClustersOwnProcesses: the cluster's postmaster
// (by the journal, and one started after the journal was written) is
// stopped and the directory removed; a process found by a string in its
// command line, one whose pid the journal names with another start time or
// executable, and a directory made again since are left alone.
func TestReplayStopsOnlyTheClustersOwnProcesses(t *testing.T) {
	needRoot(t)
	fs := linux.DefaultFS()
	bin := fakeBin(t)
	dir := clusterDir(t)
	c, err := NewCluster(dir, bin)
	if err != nil {
		t.Fatal(err)
	}
	pmCmd, pm := startIn(t, filepath.Join(dir, "data"), filepath.Join(bin, "postgres"), "600")
	lateCmd, _ := startIn(t, filepath.Join(dir, "data"), filepath.Join(bin, "postgres"), "601")
	c.Postmaster = &pm
	byName, _ := startIn(t, "/", "/bin/sh", "-c", "sleep 602", filepath.Join(dir, "data"))
	wrongTicks, victim := startIn(t, "/", "/bin/sleep", "603")
	forged := &Cluster{Dir: dir, Dev: c.Dev, Ino: c.Ino, UID: c.UID, BirthNs: c.BirthNs, Bin: c.Bin, Postmaster: &Process{PID: victim.PID, StartTicks: victim.StartTicks + 1, Exe: victim.Exe}}
	if r := forged.undo(fs); !r.OK {
		t.Fatalf("forged postmaster: %+v", r)
	}
	if !alive(wrongTicks) || !alive(byName) {
		t.Error("a process that is not the cluster's was stopped")
	}
	if alive(pmCmd) || alive(lateCmd) {
		t.Error("the cluster's processes run on")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the cluster's directory is left: %v", err)
	}

	again := clusterDir(t)
	c2, _ := NewCluster(again, bin)
	os.RemoveAll(again)
	os.Mkdir(again, 0o755) // made again since: another directory
	os.Mkdir(filepath.Join(again, "data"), 0o700)
	inside, p := startIn(t, filepath.Join(again, "data"), filepath.Join(bin, "postgres"), "604")
	c2.Postmaster = &p
	if r := c2.undo(fs); r.OK || !strings.Contains(r.Error, "not the directory dbmem made") {
		t.Errorf("a directory made again: %+v", r)
	}
	if _, err := os.Stat(again); err != nil || !alive(inside) {
		t.Errorf("a directory dbmem did not make was touched: %v", err)
	}
}
