package apply

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/hostchange"
)

// fakeOptions apply into a copy of this host's kernel files (fakeKernel).
func fakeOptions(t *testing.T) Options {
	t.Helper()
	o := testOptions(t)
	fakeKernel(t, &o)
	return o
}

// TestSecondSetRunKeepsTheFirst: apply --set vm.swappiness=10, then apply
// --set vm.zone_reclaim_mode=0: the sysctl.d file keeps both, the plan
// says so, and rollbacks walk back run by run.
func TestSecondSetRunKeepsTheFirst(t *testing.T) {
	o := fakeOptions(t)
	file := o.hostPath("/etc/sysctl.d/60-dbmem.conf")
	mustRun(t, []finding.Setting{setting("vm.swappiness", "10")}, o)
	p, err := Prepare([]finding.Setting{setting("vm.zone_reclaim_mode", "1")}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), "kept vm.swappiness=10 (sysctl), persisted by run") {
		t.Errorf("the plan does not say it keeps vm.swappiness: %q", p.Notes)
	}
	if len(p.Live) != 1 || p.Live[0].Setting.Name != "vm.zone_reclaim_mode" {
		t.Errorf("only vm.zone_reclaim_mode is set live, got %+v", p.Live)
	}
	if _, err := Run(p, o); err != nil {
		t.Fatal(err)
	}
	both := readFile(t, file)
	for _, want := range []string{"\nvm.swappiness = 10\n", "\nvm.zone_reclaim_mode = 1\n"} {
		if !strings.Contains(both, want) {
			t.Errorf("after the second run %s lacks %q:\n%s", file, want, both)
		}
	}
	mustRollback(t, o, "")
	if got := readFile(t, file); !strings.Contains(got, "vm.swappiness = 10") || strings.Contains(got, "zone_reclaim_mode = 1") {
		t.Errorf("after undoing the second run:\n%s", got)
	}
	mustRollback(t, o, "")
	mustNotExist(t, file)
}

// TestSymlinkedTargetIsRefused: apply and rollback never replace a link
// with a file, nor write through it.
func TestSymlinkedTargetIsRefused(t *testing.T) {
	o := fakeOptions(t)
	file := o.hostPath("/etc/sysctl.d/60-dbmem.conf")
	elsewhere := filepath.Join(t.TempDir(), "kept.conf")
	os.WriteFile(elsewhere, []byte("vm.swappiness = 33\n"), 0o644)
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.Symlink(elsewhere, file)
	if _, err := Prepare([]finding.Setting{setting("vm.swappiness", "10")}, o); err == nil || !strings.Contains(err.Error(), "is a symbolic link (to "+elsewhere+")") {
		t.Errorf("apply onto a link: %v", err)
	}
	os.Remove(file)
	os.WriteFile(file, []byte("vm.swappiness = 60\n"), 0o644)
	mustRun(t, []finding.Setting{setting("vm.swappiness", "10")}, o)
	os.Remove(file)
	os.Symlink(elsewhere, file) // changed into a link after the run
	if _, err := PrepareRollback(o, ""); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("rollback onto a link: %v", err)
	}
	if st, err := os.Lstat(file); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is gone: %v", err)
	}
	if readFile(t, elsewhere) != "vm.swappiness = 33\n" {
		t.Error("the link's target was written")
	}
}

// TestRollbackRemovesLeftoverTemp: a run killed (SIGKILL) between creating
// its temporary file and renaming it leaves ".60-dbmem.conf.dbmem-tmp-N"
// next to the target; the rollback removes it and says so.
func TestRollbackRemovesLeftoverTemp(t *testing.T) {
	o := fakeOptions(t)
	file := o.hostPath("/etc/sysctl.d/60-dbmem.conf")
	mustRun(t, []finding.Setting{setting("vm.swappiness", "10")}, o)
	left := filepath.Join(filepath.Dir(file), ".60-dbmem.conf"+hostchange.TempMark+"4242")
	os.WriteFile(left, []byte("half written"), 0o600)
	j := mustRollback(t, o, "")
	mustNotExist(t, left)
	mustNotExist(t, file)
	if !strings.Contains(strings.Join(j.Notes, "\n"), "removed "+left) {
		t.Errorf("the rollback's journal does not say it removed %s: %q", left, j.Notes)
	}
	other := filepath.Join(filepath.Dir(file), ".other.conf.tmp")
	os.MkdirAll(filepath.Dir(other), 0o755)
	os.WriteFile(other, nil, 0o600)
	mustRun(t, []finding.Setting{setting("vm.swappiness", "10")}, o)
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a file that is not dbmem's temporary was removed: %v", err)
	}
}

// TestLockRefusesASecondRun: while one run holds the lock, a second is
// refused at once with a BusyError naming the holder.
func TestLockRefusesASecondRun(t *testing.T) {
	o := fakeOptions(t)
	held, release, err := Lock(o)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare([]finding.Setting{setting("vm.swappiness", "10")}, held)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(p, o) // another run: no lock of its own yet
	if want := fmt.Sprintf("(pid %d) is running and holds", os.Getpid()); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("second run: %v, want %q", err, want)
	}
	if _, err := Run(p, held); err != nil {
		t.Errorf("the holder's run: %v", err)
	}
	release()
	if _, again, err := Lock(o); err != nil {
		t.Errorf("after release: %v", err)
	} else {
		again()
	}
}

// TestLinkedDirectoryIsRefused: a conf.d the database account replaced
// with a link (to /etc/cron.d, say) is not written through.
func TestLinkedDirectoryIsRefused(t *testing.T) {
	needRoot(t)
	o := fakeOptions(t)
	elsewhere := t.TempDir()
	confd := o.hostPath("/etc/postgresql/15/main/conf.d")
	os.MkdirAll(filepath.Dir(confd), 0o755)
	if err := os.Symlink(elsewhere, confd); err != nil {
		t.Fatal(err)
	}
	os.Lchown(confd, nobody, nobody)
	o.Postgres, o.Engines = true, &Engines{Postgres: 1}
	o.Render.PostgresConfDir = "/etc/postgresql/15/main/conf.d"
	_, err := Prepare([]finding.Setting{{Target: finding.TargetPostgres, Name: "huge_pages", Value: "on"}}, o)
	if err == nil || !strings.Contains(err.Error(), "symbolic link owned by uid") {
		t.Errorf("apply through a linked conf.d: %v", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("written through the link: %v", ents)
	}
}

// TestRollbackRestoresOnlyDbmemFiles: a journal (root's, in the journal
// directory: damaged, or forged) that names a file apply never writes, a
// backup kept elsewhere, or a created directory not above the file, is
// refused by rollback and nothing is restored.
func TestRollbackRestoresOnlyDbmemFiles(t *testing.T) {
	o := fakeOptions(t)
	j := mustRun(t, []finding.Setting{setting("vm.swappiness", "10")}, o)
	crontab := o.hostPath("/etc/crontab")
	os.WriteFile(crontab, []byte("root's\n"), 0o644)
	forged := filepath.Join(t.TempDir(), "forged")
	os.WriteFile(forged, []byte("* * * * * root sh /tmp/x\n"), 0o644)
	good := j.Files[0]
	for name, rec := range map[string]FileRecord{
		"another file":          {Path: crontab, Existed: true, Backup: crontab + ".dbmem-" + j.ID},
		"a backup elsewhere":    {Path: good.Path, Existed: true, Backup: forged},
		"a directory not above": {Path: good.Path, CreatedDirs: []string{filepath.Dir(crontab) + "/cron.d"}},
		"a relative path":       {Path: "etc/sysctl.d/60-dbmem.conf"},
	} {
		j.Files = []FileRecord{rec}
		if err := j.save(); err != nil {
			t.Fatal(err)
		}
		if _, err := PrepareRollback(o, j.ID); err == nil || !strings.Contains(err.Error(), "dbmem does not restore it") {
			t.Errorf("%s: %v, want refused", name, err)
		}
	}
	if readFile(t, crontab) != "root's\n" || !strings.Contains(readFile(t, good.Path), "vm.swappiness = 10") {
		t.Error("a file was restored from a forged journal")
	}
}

// TestRollbackRefusesAChangedBackup: a backup next to its file (in a
// conf.d the database account owns, it could replace it) that became a
// link to a root-only file, or holds other bytes than the journal
// recorded, is not restored.
func TestRollbackRefusesAChangedBackup(t *testing.T) {
	o := fakeOptions(t)
	file := o.hostPath("/etc/sysctl.d/60-dbmem.conf")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte("vm.swappiness = 60\n"), 0o644)
	j := mustRun(t, []finding.Setting{setting("vm.swappiness", "10")}, o)
	backup := j.Files[0].Backup
	secret := filepath.Join(t.TempDir(), "shadow")
	os.WriteFile(secret, []byte("root:secret\n"), 0o600)
	for name, plant := range map[string]func(){
		"a link":      func() { os.Symlink(secret, backup) },
		"other bytes": func() { os.WriteFile(backup, []byte("vm.swappiness = 1\n"), 0o644) },
	} {
		os.Remove(backup)
		plant()
		if _, err := PrepareRollback(o, ""); err == nil || !strings.Contains(err.Error(), "dbmem does not restore") {
			t.Errorf("%s as the backup: %v, want refused", name, err)
		}
	}
	if strings.Contains(readFile(t, file), "secret") || !strings.Contains(readFile(t, file), "vm.swappiness = 10") {
		t.Errorf("the file was restored from a changed backup:\n%s", readFile(t, file))
	}
}
