package kerneltest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Paths of the lock and the journal; variables so a test of this package can
// move them.
var (
	LockPath    = "/run/lock/dbmem-kerneltest.lock"
	JournalPath = "/run/lock/dbmem-kerneltest.journal"
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
	Lock(t)
	old, err := readValue(path)
	if err != nil {
		t.Fatalf("read %s before changing it: %v", path, err)
	}
	if err := appendJournal(path, old); err != nil {
		t.Fatalf("journal %s: %v", path, err)
	}
	t.Cleanup(func() {
		if err := restore(path, old); err != nil {
			t.Errorf("restore %s to %q: %v", path, old, err)
			return
		}
		dropJournal(path)
	})
	if err := os.WriteFile(path, []byte(value+"\n"), 0o644); err != nil {
		t.Fatalf("write %q to %s: %v", value, path, err)
	}
	got, err := readValue(path)
	if err != nil {
		t.Fatalf("read back %s: %v", path, err)
	}
	return got
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
	cur, err := readInt(path)
	if err != nil {
		t.Fatal(err)
	}
	want := cur + n
	got := Set(t, path, strconv.Itoa(want))
	if g, _ := strconv.Atoi(got); g < want {
		os.WriteFile("/proc/sys/vm/compact_memory", []byte("1\n"), 0o200)
		os.WriteFile(path, []byte(strconv.Itoa(want)+"\n"), 0o644)
		if g, _ = readInt(path); g < want {
			t.Fatalf("asked the kernel for %d huge pages, got %d: memory is too fragmented or too small", want, g)
		}
	}
	return want
}

func readValue(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

func readInt(path string) (int, error) {
	s, err := readValue(path)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s holds %q, not a number", path, s)
	}
	return v, nil
}

func restore(path, old string) error {
	if err := os.WriteFile(path, []byte(old+"\n"), 0o644); err != nil {
		return err
	}
	got, err := readValue(path)
	if err != nil {
		return err
	}
	if got != old {
		return fmt.Errorf("kernel reads back %q", got)
	}
	return nil
}

// The journal holds "path<TAB>old value" lines, oldest first.

func appendJournal(path, old string) error {
	f, err := os.OpenFile(JournalPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s\t%s\n", path, old)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// dropJournal removes the newest entry for path.
func dropJournal(path string) {
	lines := readJournal()
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i][0] == path {
			lines = append(lines[:i], lines[i+1:]...)
			break
		}
	}
	writeJournal(lines)
}

func readJournal() [][2]string {
	f, err := os.Open(JournalPath)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p, v, ok := strings.Cut(sc.Text(), "\t"); ok {
			out = append(out, [2]string{p, v})
		}
	}
	return out
}

func writeJournal(lines [][2]string) {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%s\t%s\n", l[0], l[1])
	}
	os.WriteFile(JournalPath, []byte(b.String()), 0o644)
}

// replayJournal restores, newest first, the values an interrupted test left.
func replayJournal() error {
	lines := readJournal()
	for i := len(lines) - 1; i >= 0; i-- {
		if err := restore(lines[i][0], lines[i][1]); err != nil {
			return fmt.Errorf("%s: %w", lines[i][0], err)
		}
	}
	if err := os.Remove(JournalPath); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// procLock is the process's share of the machine-wide flock.
var procLock = &flockRef{}

type flockRef struct {
	mu   sync.Mutex
	refs int
	f    *os.File
}

func (l *flockRef) acquire(t testing.TB) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refs > 0 {
		l.refs++
		return nil
	}
	f, err := os.OpenFile(LockPath, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("open kernel test lock: %w", err)
	}
	start := time.Now()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return fmt.Errorf("lock %s: %w", LockPath, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Logf("waited %s for the kernel test lock", d.Round(time.Millisecond))
	}
	l.f, l.refs = f, 1
	if err := replayJournal(); err != nil {
		return fmt.Errorf("restore values left by an interrupted test: %w", err)
	}
	return nil
}

func (l *flockRef) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refs--; l.refs == 0 {
		syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		l.f.Close()
		l.f = nil
	}
}
