package pgcluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/treetest"
)

// usePlainFiles points the lock and the journal at a temporary directory
// and the pool at a file in a fake procfs root: the test checks the
// journaling without changing the kernel's pool.
func usePlainFiles(t *testing.T, pool string) linux.FS {
	dir := t.TempDir()
	oldLock, oldJournal, oldFS := KernelLockPath, KernelJournalPath, poolFS
	KernelLockPath, KernelJournalPath = filepath.Join(dir, "lock"), filepath.Join(dir, "journal")
	root := filepath.Join(dir, "root")
	treetest.Write(t, root, map[string]string{"sys/vm/nr_hugepages": pool, "sys/vm/swappiness": "60\n"})
	poolFS = linux.FS{Proc: root, Sys: root, Root: root}
	t.Cleanup(func() { KernelLockPath, KernelJournalPath, poolFS = oldLock, oldJournal, oldFS })
	return poolFS
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b))
}

// TestHugePoolJournal grows a pool after a killed holder left a journal
// entry: the entry is undone first, the growth is journaled while held,
// and Restore puts the pool back and removes the journal.
func TestHugePoolJournal(t *testing.T) {
	fs := usePlainFiles(t, "100\n")
	left, err := hostchange.NewJournal(KernelJournalPath, "a killed test")
	if err != nil {
		t.Fatal(err)
	}
	swappiness := hostchange.Sysctl("vm.swappiness")
	if err := left.Add(hostchange.Entry{Kernel: &hostchange.Kernel{Setting: swappiness, Before: "10"}}); err != nil {
		t.Fatal(err)
	}
	p, err := GrowHugePool(context.Background(), 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, swappiness.Path(fs)); got != "10" {
		t.Errorf("value left by a killed holder: %s, want 10 restored", got)
	}
	j, ok, err := hostchange.LoadJournal(KernelJournalPath)
	want := hostchange.Kernel{Setting: poolSetting, Before: "100"}
	if err != nil || !ok || len(j.Entries) != 1 || j.Entries[0].Kernel == nil || *j.Entries[0].Kernel != want {
		t.Errorf("journal while held: %+v, %v", j, err)
	}
	if got := readFile(t, poolSetting.Path(fs)); got != "105" || p.Before != 100 || p.Set != 105 {
		t.Errorf("while held: pool %s, %+v", got, p)
	}
	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}
	_, err = os.Stat(KernelJournalPath)
	if got := readFile(t, poolSetting.Path(fs)); got != "100" || !os.IsNotExist(err) {
		t.Errorf("after Restore: pool %s, journal %v", got, err)
	}
	if err := p.Restore(); err != nil {
		t.Errorf("second Restore: %v", err)
	}
}

// TestHugePoolWaitsForLock holds the lock on another file description:
// GrowHugePool waits and gives up when its context ends, leaving the pool.
func TestHugePoolWaitsForLock(t *testing.T) {
	usePlainFiles(t, "7\n")
	f, err := os.OpenFile(KernelLockPath, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	_, err = GrowHugePool(ctx, 3)
	if err == nil || !strings.Contains(err.Error(), "waiting for") {
		t.Errorf("GrowHugePool with the lock taken: %v", err)
	}
	if got := readFile(t, poolSetting.Path(poolFS)); got != "7" {
		t.Errorf("pool changed without the lock: %s", got)
	}
}
