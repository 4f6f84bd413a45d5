package confbudget

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

func write(t *testing.T, root, name, text string) {
	t.Helper()
	p := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// refused checks that err is the budget's refusal naming file, with why.
func refused(t *testing.T, err error, file, why string) {
	t.Helper()
	if !errors.Is(err, ErrOverBudget) || !strings.HasPrefix(err.Error(), file+": refused: ") || !strings.Contains(err.Error(), why) {
		t.Errorf("got %v, want a refusal of %s saying %q", err, file, why)
	}
}

func TestEnterRefusesCyclesAndDepth(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a.conf", "b.conf", "c.conf"} {
		write(t, root, f, "x\n")
	}
	r := New(linux.FS{Root: root}, Budget{Depth: 2})
	for _, f := range []string{"/a.conf", "/b.conf"} {
		if _, err := r.Enter(f); err != nil {
			t.Fatal(err)
		}
	}
	_, err := r.Enter("/a.conf")
	refused(t, err, filepath.Join(root, "a.conf"), "an include cycle: /a.conf includes /b.conf includes /a.conf")
	if _, err := r.Enter("/c.conf"); err != nil {
		t.Fatal(err)
	}
	_, err = r.Enter("/b.conf/../d.conf")
	refused(t, err, filepath.Join(root, "d.conf"), "includes nested more than 2 deep: /a.conf includes /b.conf includes /c.conf includes /d.conf")
	r.Leave()
	r.Leave()
	if _, err := r.Enter("/a.conf/../c.conf"); err != nil { // the same file twice, not in a cycle: as the servers do
		t.Errorf("c.conf again, outside the chain: %v", err)
	}
}

func TestEnterRefusesFilesBytesAndTime(t *testing.T) {
	root := t.TempDir()
	write(t, root, "small.conf", strings.Repeat("x", 100))
	write(t, root, "big.conf", strings.Repeat("x", 2000))
	fs := linux.FS{Root: root}

	r := New(fs, Budget{Files: 2})
	for i := 0; i < 2; i++ {
		r.Enter("/small.conf")
		r.Leave()
	}
	_, err := r.Enter("/small.conf")
	refused(t, err, filepath.Join(root, "small.conf"), "more than 2 files")

	r = New(fs, Budget{FileBytes: 1000})
	_, err = r.Enter("/big.conf")
	refused(t, err, filepath.Join(root, "big.conf"), "more than 1000 bytes")

	r = New(fs, Budget{FileBytes: 1000, TotalBytes: 250})
	for i := 0; i < 2; i++ {
		if _, err := r.Enter("/small.conf"); err != nil {
			t.Fatal(err)
		}
		r.Leave()
	}
	_, err = r.Enter("/small.conf")
	refused(t, err, filepath.Join(root, "small.conf"), "more than 50 bytes (one file may hold 1000, all of them 250; 200 read before it)")

	r = New(fs, Budget{Time: time.Millisecond})
	time.Sleep(5 * time.Millisecond)
	_, err = r.Enter("/small.conf")
	refused(t, err, filepath.Join(root, "small.conf"), "took more than 1ms")

	r = New(fs, Budget{FanOut: 3})
	refused(t, r.FanOut("/small.conf", 4, "includes"), filepath.Join(root, "small.conf"), "4 includes, more than 3")
	if err := r.FanOut("/small.conf", 3, "includes"); err != nil {
		t.Error(err)
	}
}

// A 512 MiB sparse file is refused by its size: nothing of it is read.
func TestEnterRefusesASparseFileUnread(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "postgresql.conf")
	write(t, root, "postgresql.conf", "shared_buffers = '128MB'\n")
	if err := os.Truncate(p, 512<<20); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := New(linux.FS{Root: root}, Budget{}).Enter("/postgresql.conf")
	runtime.ReadMemStats(&after)
	refused(t, err, p, "more than 1048576 bytes")
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("refusing it allocated %d bytes", alloc)
	}
}

func TestEnterRefusesAFIFO(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.conf"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := New(linux.FS{Root: root}, Budget{}).Enter("/fifo.conf") // blocked in open(2) before
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO: %v", err)
	}
}
