package sysv

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dbmem/dbmem/internal/linux"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// shmtool builds internal/shmtool once into a directory every user may
// read (the tests run it as nobody too) and returns its path.
func shmtool(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("real SysV segment tests run as root (they read every process and drop to other users)")
	}
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "dbmem-shmtool-"); buildErr != nil {
			return
		}
		if buildErr = os.Chmod(buildDir, 0o755); buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(buildDir, "shmtool"), "./internal/shmtool").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./internal/shmtool: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, "shmtool")
}

// helper is a running shmtool that attaches a segment.
type helper struct {
	PID   int
	ID    int // shmid in the helper's IPC namespace
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// startHelper runs shmtool with args and waits for its "ready SHMID" line.
// Cleanup closes its input (it detaches, and removes what it created),
// kills it by PID if it does not exit, and removes the segment (IPC_RMID)
// unless it lives in a private IPC namespace.
func startHelper(t *testing.T, attr *syscall.SysProcAttr, args ...string) *helper {
	t.Helper()
	h := &helper{cmd: exec.Command(shmtool(t), args...)}
	h.cmd.SysProcAttr = attr
	var stderr bytes.Buffer
	h.cmd.Stderr = &stderr
	var err error
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatalf("start shmtool %v: %v", args, err)
	}
	h.PID = h.cmd.Process.Pid
	privateNS := attr != nil && attr.Cloneflags&syscall.CLONE_NEWIPC != 0
	t.Cleanup(func() { h.stop(t, privateNS) })
	line, err := readLine(stdout, 2*time.Minute) // it may touch a large segment first
	if _, serr := fmt.Sscanf(line, "ready %d", &h.ID); err != nil || serr != nil {
		t.Fatalf("shmtool %v: no ready line (got %q, %v): %s", args, line, err, stderr.String())
	}
	return h
}

func (h *helper) stop(t *testing.T, privateNS bool) {
	h.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Errorf("shmtool %d did not exit 2 minutes after its input closed: killing it", h.PID)
		syscall.Kill(h.PID, syscall.SIGKILL)
		<-done
	}
	if privateNS {
		return // the namespace and its segments died with the helper
	}
	if _, err := unix.SysvShmCtl(h.ID, unix.IPC_RMID, nil); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.EIDRM) {
		t.Errorf("remove segment %d: %v", h.ID, err)
	}
}

func readLine(r io.Reader, timeout time.Duration) (string, error) {
	ch := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Scan()
		ch <- sc.Text()
		io.Copy(io.Discard, r) // keep the pipe drained
	}()
	select {
	case l := <-ch:
		return l, nil
	case <-time.After(timeout):
		return "", fmt.Errorf("no line after %s", timeout)
	}
}

// runShmtool runs shmtool to its end and returns its output.
func runShmtool(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command(shmtool(t), args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// readLive reads the running host and fails the test on error.
func readLive(t *testing.T) Snapshot {
	t.Helper()
	s, err := Read(linux.DefaultFS())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func findSegment(t *testing.T, s Snapshot, id int) SegmentInfo {
	t.Helper()
	for _, seg := range s.Segments {
		if seg.ID == id {
			return seg
		}
	}
	t.Fatalf("segment %d not in the snapshot", id)
	return SegmentInfo{}
}

func mustSize(n uint64) string { return strconv.FormatUint(n, 10) }

// nobody returns the uid and gid of "nobody", skipping when it is missing.
func nobody(t *testing.T) (uid, gid string) {
	t.Helper()
	b, err := os.ReadFile("/etc/passwd")
	if err != nil {
		t.Skip(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Split(l, ":"); len(f) > 3 && f[0] == "nobody" {
			return f[2], f[3]
		}
	}
	t.Skip("no user nobody")
	return "", ""
}
