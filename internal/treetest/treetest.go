package treetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Write creates each file (a slash-separated path relative to root, such
// as "proc/9/cgroup") with its text, making directories as needed. It
// fails the test on any error.
func Write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// HungHost copies the recorded host testdata/fixtures/pg15-hugepages-off
// (repo is the path to the repository's root) into a temporary directory
// and makes client backend 18706's cmdline a FIFO: opening it blocks, as a
// read of the cmdline of a process whose mmap lock is held does. Cleanup
// opens the FIFO for writing, which ends the abandoned read. It returns
// the copy's root (proc, sys and root below it) and the FIFO's path.
func HungHost(t testing.TB, repo string) (dir, fifo string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "host")
	if out, err := exec.Command("cp", "-a", filepath.Join(repo, "testdata", "fixtures", "pg15-hugepages-off"), dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	fifo = filepath.Join(dir, "proc", "18706", "cmdline")
	os.Remove(fifo)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return dir, fifo
}
