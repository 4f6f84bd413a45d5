package kernelset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// plainFile writes s to a file in a temporary directory: these tests check
// the journaling without changing the kernel.
func plainFile(t *testing.T, name, s string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func read(t *testing.T, path string) string {
	t.Helper()
	s, err := Read(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return s
}

// TestJournalDropsNewestAndReplaysNewestFirst nests two changes of one
// file: Drop removes only the newer entry, and Replay undoes the newest
// first, so the oldest value is what stays.
func TestJournalDropsNewestAndReplaysNewestFirst(t *testing.T) {
	value := plainFile(t, "swappiness", "30\n")
	j := Journal(filepath.Join(t.TempDir(), "journal"))
	for _, old := range []string{"10", "20", "25"} {
		if err := j.Record(value, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Drop(value); err != nil {
		t.Fatal(err)
	}
	if got, want := read(t, string(j)), value+"\t10\n"+value+"\t20"; got != want {
		t.Errorf("journal after Drop: %q, want %q", got, want)
	}
	if err := j.Replay(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, value); got != "10" {
		t.Errorf("value after Replay: %s, want the oldest, 10", got)
	}
	if _, err := os.Stat(string(j)); !os.IsNotExist(err) {
		t.Errorf("journal not removed after Replay: %v", err)
	}
	if err := j.Replay(); err != nil {
		t.Errorf("Replay without a journal: %v", err)
	}
}

// TestGrowPoolOnPlainFile: a file that takes the size reads it back at
// once, so GrowPool returns it without compacting.
func TestGrowPoolOnPlainFile(t *testing.T) {
	pool := plainFile(t, "nr_hugepages", "4\n")
	if got, err := GrowPool(pool, 9); err != nil || got != 9 {
		t.Errorf("GrowPool = %d, %v; want 9", got, err)
	}
	if err := Restore(pool, "4"); err != nil || read(t, pool) != "4" {
		t.Errorf("Restore: %v, file %q", err, read(t, pool))
	}
	if _, err := ReadInt(plainFile(t, "bad", "many\n")); err == nil || !strings.Contains(err.Error(), "not a number") {
		t.Errorf("ReadInt of a word: %v", err)
	}
}

// TestTakeLockWaitsUntilContextEnds holds the lock on another file
// description: TakeLock waits, gives up when ctx ends, and takes it once
// it is free.
func TestTakeLockWaitsUntilContextEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	held, err := TakeLock(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	if _, err := TakeLock(ctx, path); err == nil || !strings.Contains(err.Error(), "waiting for") {
		t.Errorf("TakeLock with the lock taken: %v", err)
	}
	held.Release()
	held.Release()
	l, err := TakeLock(context.Background(), path)
	if err != nil {
		t.Fatalf("TakeLock after Release: %v", err)
	}
	defer l.Release()
	f, _ := os.Open(path)
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		t.Error("the lock is free while TakeLock holds it")
	}
}
