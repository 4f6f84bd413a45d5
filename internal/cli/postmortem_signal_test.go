package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	dbmemOnce sync.Once
	dbmemBin  string
	dbmemErr  error
)

// builtDBMem builds cmd/dbmem once for the tests that need the real
// program (signals reach a process, not a function).
func builtDBMem(t *testing.T) string {
	t.Helper()
	dbmemOnce.Do(func() {
		dir, err := os.MkdirTemp("", "dbmem-cli-test-")
		if err != nil {
			dbmemErr = err
			return
		}
		dbmemBin = filepath.Join(dir, "dbmem")
		out, err := exec.Command("go", "build", "-o", dbmemBin, "../../cmd/dbmem").CombinedOutput()
		if err != nil {
			dbmemErr = fmt.Errorf("go build ./cmd/dbmem: %v\n%s", err, out)
		}
	})
	if dbmemErr != nil {
		t.Fatal(dbmemErr)
	}
	return dbmemBin
}

// fifoWithIdleWriter makes a FIFO and holds its write end open without
// writing: a reader of it never sees the end of its input.
func fifoWithIdleWriter(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kern.fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(p, os.O_RDWR, 0) // O_RDWR: does not wait for a reader
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return p
}

// waitOpened waits until process pid has path open, the sign that it is
// reading it.
func waitOpened(t *testing.T, pid int, path string) {
	t.Helper()
	for i := 0; i < 6000; i++ {
		ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		for _, e := range ents {
			if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name())); l == path {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d never opened %s", pid, path)
}

// postmortem --kernel-log FIFO whose writer never writes: SIGTERM and
// SIGINT end it promptly with a clear error (it used to read the FIFO
// forever and ignore both signals).
func TestPostmortemFIFOEndsOnSignal(t *testing.T) {
	bin := builtDBMem(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		fifo := fifoWithIdleWriter(t)
		cmd := exec.Command(bin, "postmortem", "--kernel-log", fifo, "--db-log", os.DevNull)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitOpened(t, cmd.Process.Pid, fifo)
		sent := time.Now()
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != ExitError || !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("%v: %v, stderr %q", sig, err, stderr.String())
			}
			took := time.Since(sent)
			t.Logf("%v: ended %v after the signal", sig, took.Round(time.Millisecond))
			if took > 5*time.Second { // milliseconds when idle; generous for a loaded machine
				t.Errorf("%v: ended only %v after the signal", sig, took)
			}
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: still running 60 s after the signal", sig)
		}
	}
}

// A FIFO nobody writes to is read as empty at once: opening it does not
// wait for a writer.
func TestPostmortemFIFOWithoutWriter(t *testing.T) {
	bin := builtDBMem(t)
	p := filepath.Join(t.TempDir(), "kern.fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The binary before the fix blocked in open(2): the timeout kills it.
	out, err := exec.CommandContext(ctx, bin, "postmortem", "--kernel-log", p, "--db-log", os.DevNull).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "empty: read from a pipe, FIFO or device to its end") {
		t.Errorf("%v:\n%s", err, out)
	}
}
