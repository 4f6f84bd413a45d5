package linux

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fifoTree is a procfs root whose process 42 has a FIFO for cmdline, a
// stand-in for a read that hangs (a cmdline waiting for a process's mmap
// lock); opening it blocks until a writer comes, which cleanup provides.
func fifoTree(t *testing.T) FS {
	t.Helper()
	dir := t.TempDir()
	pid := filepath.Join(dir, "42")
	os.MkdirAll(pid, 0o755)
	os.WriteFile(filepath.Join(pid, "stat"), []byte("42 (x) S 1"), 0o644)
	os.WriteFile(filepath.Join(dir, "meminfo"), []byte("MemTotal: 1 kB\n"), 0o644)
	fifo := filepath.Join(pid, "cmdline")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // release the abandoned read
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return FS{Proc: dir, Sys: dir, Root: dir}
}

func TestDeadlines(t *testing.T) {
	fs := fifoTree(t)
	var stuck []string
	// The deadline must let the plain reads below finish on a loaded
	// machine (a read runs in a goroutine that must be scheduled in time).
	fs.Deadlines = NewDeadlines(2 * time.Second)
	fs.Deadlines.OnStuck = func(path, key string) { stuck = append(stuck, path+" "+key) }
	cmdline := fs.ProcPath("42", "cmdline")
	if _, err := fs.ReadFile(cmdline); !errors.Is(err, ErrReadTimeout) || !strings.Contains(err.Error(), cmdline) {
		t.Fatalf("hung read: %v", err)
	}
	// The same process is skipped at once; others are read.
	start := time.Now()
	if _, err := fs.ReadFile(fs.ProcPath("42", "stat")); !errors.Is(err, ErrReadTimeout) || !strings.Contains(err.Error(), "skipped, a read of "+cmdline) {
		t.Errorf("read of the stuck process: %v", err)
	}
	if d := time.Since(start); d > 150*time.Millisecond {
		t.Logf("the skipped read took %s (a busy machine?)", d) // not asserted: no wall-clock thresholds
	}
	if b, err := fs.ReadFile(fs.ProcPath("meminfo")); err != nil || string(b) != "MemTotal: 1 kB\n" {
		t.Errorf("another file: %q %v", b, err)
	}
	if got := fs.Deadlines.Stuck(); len(got) != 1 || got[0].Path != cmdline || fs.Deadlines.Timeouts() != 1 {
		t.Errorf("stuck %+v, %d timeouts", got, fs.Deadlines.Timeouts())
	}
	if len(stuck) != 1 || stuck[0] != cmdline+" "+fs.ProcPath("42") {
		t.Errorf("OnStuck saw %q", stuck)
	}
	// When the read returns, the process is read again.
	if f, err := os.OpenFile(cmdline, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
	for end := time.Now().Add(2 * time.Minute); len(fs.Deadlines.Stuck()) > 0 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := fs.ReadFile(fs.ProcPath("42", "stat")); err != nil {
		t.Errorf("after the hung read returned: %v", err)
	}
}

// TestDeadlinesBound: reads past MaxStuck hung ones fail at once.
func TestDeadlinesBound(t *testing.T) {
	fs := fifoTree(t)
	fs.Deadlines = &Deadlines{Timeout: 100 * time.Millisecond, MaxStuck: 1}
	fs.ReadFile(fs.ProcPath("42", "cmdline"))
	if _, err := fs.ReadFile(fs.ProcPath("meminfo")); err == nil || !strings.Contains(err.Error(), "1 reads are hanging") {
		t.Errorf("read past the bound: %v", err)
	}
}

// BenchmarkReadStatus reads every process's status as a watch tick does,
// without and with deadlines: the price of a goroutine and a timer per
// read.
func BenchmarkReadStatus(b *testing.B) {
	for name, d := range map[string]*Deadlines{"plain": nil, "deadlines": NewDeadlines(time.Second)} {
		b.Run(name, func(b *testing.B) {
			fs := DefaultFS()
			fs.Deadlines = d
			pids, _ := ListPIDs(fs)
			for b.Loop() {
				for _, pid := range pids {
					ReadStatus(fs, pid)
				}
			}
			b.ReportMetric(float64(len(pids)), "procs")
		})
	}
}

// BenchmarkDeadlineOverhead reads one small tmpfs file, the cheapest read
// there is: the difference is the deadline's own cost.
func BenchmarkDeadlineOverhead(b *testing.B) {
	p := filepath.Join(b.TempDir(), "f")
	os.WriteFile(p, []byte("x"), 0o644)
	for name, d := range map[string]*Deadlines{"plain": nil, "deadlines": NewDeadlines(time.Second)} {
		b.Run(name, func(b *testing.B) {
			fs := FS{Proc: "/proc", Deadlines: d}
			for b.Loop() {
				fs.ReadFile(p)
			}
		})
	}
}
