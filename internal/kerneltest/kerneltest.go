package kerneltest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
)

// Paths of the lock and the journal (in root's state directory, which no
// other user can write); variables so a test of this package can move them.
var (
	LockPath    = hostchange.RuntimePath(hostchange.KernelLock)
	JournalPath = hostchange.RuntimePath(hostchange.KernelJournal)
)

// Lock takes the machine-wide kernel-settings lock for the rest of the test.
// It restores any values a killed test left in the journal. The lock is held
// per test binary: nested calls (a subtest of a test that holds it) do not
// block, and tests of one package should not change kernel settings in
// parallel.
func Lock(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("changing kernel settings needs root: run the tests as root")
	}
	if err := procLock.acquire(t); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(procLock.release)
}

// Set writes value to a kernel file (a /proc/sys or /sys path) after taking
// the lock and recording the old value; the old value is restored when the
// test ends. It returns what the kernel reads back, which can differ (a huge
// page pool that could only partly be allocated).
func Set(t testing.TB, path, value string) string {
	t.Helper()
	record(t, path)
	got, err := hostchange.Write(path, value)
	if err != nil {
		t.Fatalf("write %q to %s: %v", value, path, err)
	}
	return got
}

// record takes the lock, journals path's value and restores it when the
// test ends. Only the settings dbmem's journal restores may be changed.
func record(t testing.TB, path string) {
	t.Helper()
	Lock(t)
	old, err := hostchange.Read(path)
	if err != nil {
		t.Fatalf("read %s before changing it: %v", path, err)
	}
	setting, ok := hostchange.SettingAt(linux.DefaultFS(), path)
	if why := hostchange.Allowed(setting, linux.SelectedWord(old)); !ok || why != "" {
		t.Fatalf("kerneltest changes only the kernel settings dbmem's journal can restore (internal/hostchange, allow.go): %s: %s", path, why)
	}
	surplus := surplusPath(path)
	surplusBefore, err := hostchange.ReadInt(surplus)
	if err != nil {
		surplus = "" // not a pool, or no surplus to wait for
	}
	if err := procLock.journalAdd(hostchange.Kernel{Setting: setting, Before: linux.SelectedWord(old)}); err != nil {
		t.Fatalf("journal %s: %v", path, err)
	}
	t.Cleanup(func() {
		if err := hostchange.Restore(path, linux.SelectedWord(old)); err != nil {
			t.Errorf("restore %s to %q: %v", path, old, err)
			return
		}
		waitSurplus(t, surplus, surplusBefore)
		if err := procLock.journalDrop(setting); err != nil {
			t.Errorf("drop %s from the journal %s: %v", path, JournalPath, err)
		}
	})
}

// Sysctl is Set for a sysctl name such as "vm.swappiness".
func Sysctl(t testing.TB, name, value string) string {
	t.Helper()
	return Set(t, SysctlPath(name), value)
}

// SysctlPath maps "vm.nr_hugepages" to /proc/sys/vm/nr_hugepages.
func SysctlPath(name string) string {
	return filepath.Join("/proc/sys", strings.ReplaceAll(name, ".", "/"))
}

// AddHugePages grows the default-size huge page pool by n pages for the rest
// of the test and returns the pool size it asked for. It compacts memory and
// retries once when the kernel cannot find enough contiguous memory, and fails
// the test with the numbers when it still cannot. Register it before starting
// a server that will use the pages, so the server stops first.
func AddHugePages(t testing.TB, n int) int {
	t.Helper()
	Lock(t)
	path := SysctlPath("vm.nr_hugepages")
	cur, err := hostchange.ReadInt(path)
	if err != nil {
		t.Fatal(err)
	}
	want := cur + n
	record(t, path)
	got, err := hostchange.GrowPool(path, want)
	if err != nil {
		t.Fatal(err)
	}
	if got < want {
		t.Fatalf("asked the kernel for %d huge pages, got %d: memory is too fragmented or too small", want, got)
	}
	return want
}

// procLock is the process's share of the machine-wide flock, and the
// journal of the process's changes.
var procLock = &flockRef{}

type flockRef struct {
	mu      sync.Mutex
	refs    int
	lock    *hostchange.Lock
	journal *hostchange.Journal
}

func (l *flockRef) acquire(t testing.TB) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refs > 0 {
		l.refs++
		return nil
	}
	start := time.Now()
	lock, err := hostchange.TakeLock(context.Background(), LockPath)
	if err != nil {
		return err
	}
	if d := time.Since(start); d > time.Second {
		t.Logf("waited %s for the kernel test lock", d.Round(time.Millisecond))
	}
	if note := hostchange.LegacyNote(hostchange.LegacyKernelJournal); note != "" {
		t.Log(note)
	}
	fs := linux.DefaultFS()
	if _, err := hostchange.Replay(fs, JournalPath); err != nil {
		lock.Release() // the caller fails without registering release
		return fmt.Errorf("restore values left by an interrupted test: %w", err)
	}
	if l.journal, err = hostchange.NewJournal(JournalPath, "kerneltest "+filepath.Base(os.Args[0])); err != nil {
		lock.Release()
		return err
	}
	l.lock, l.refs = lock, 1
	settlePool(t)
	return nil
}

func (l *flockRef) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refs--; l.refs == 0 {
		l.lock.Release()
		l.lock, l.journal = nil, nil
	}
}

// journalAdd journals a change (under the lock: the caller holds it).
func (l *flockRef) journalAdd(k hostchange.Kernel) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.journal.Add(hostchange.Entry{Kernel: &k})
}

func (l *flockRef) journalDrop(s hostchange.Setting) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.journal.DropKernel(s)
}
