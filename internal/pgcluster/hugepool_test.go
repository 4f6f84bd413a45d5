package pgcluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// usePlainFiles points the lock, the journal and the pool at files in a
// temporary directory: the test checks the journaling without changing the
// kernel's pool.
func usePlainFiles(t *testing.T, pool string) (dir string) {
	dir = t.TempDir()
	oldLock, oldJournal, oldPool := KernelLockPath, KernelJournalPath, nrHugepagesPath
	KernelLockPath, KernelJournalPath = filepath.Join(dir, "lock"), filepath.Join(dir, "journal")
	nrHugepagesPath = filepath.Join(dir, "nr_hugepages")
	t.Cleanup(func() { KernelLockPath, KernelJournalPath, nrHugepagesPath = oldLock, oldJournal, oldPool })
	writeFile(t, nrHugepagesPath, pool)
	return dir
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b))
}

// TestHugePoolJournal grows a pool after a killed holder left a journal
// entry: the entry is undone first, the growth is journaled in kerneltest's
// format while held, and Restore puts the pool back and drops the entry.
func TestHugePoolJournal(t *testing.T) {
	dir := usePlainFiles(t, "100\n")
	left := filepath.Join(dir, "swappiness")
	writeFile(t, left, "60\n")
	writeFile(t, KernelJournalPath, left+"\t10\n")
	p, err := GrowHugePool(context.Background(), 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, left); got != "10" {
		t.Errorf("value left by a killed holder: %s, want 10 restored", got)
	}
	if got, j := readFile(t, nrHugepagesPath), readFile(t, KernelJournalPath); got != "105" || j != nrHugepagesPath+"\t100" || p.Before != 100 || p.Set != 105 {
		t.Errorf("while held: pool %s, journal %q, %+v", got, j, p)
	}
	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}
	if got, j := readFile(t, nrHugepagesPath), readFile(t, KernelJournalPath); got != "100" || j != "" {
		t.Errorf("after Restore: pool %s, journal %q", got, j)
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
	if got := readFile(t, nrHugepagesPath); got != "7" {
		t.Errorf("pool changed without the lock: %s", got)
	}
}
