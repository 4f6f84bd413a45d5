//go:build linux && amd64

package apply

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/dbmem/dbmem/internal/hostchange"
)

// changing are the system calls that change a file: a kill point is
// before each of them (an openat counts when it may create or write).
var changing = map[uint64]bool{
	unix.SYS_WRITE: true, unix.SYS_PWRITE64: true, unix.SYS_FCHMOD: true, unix.SYS_FCHOWN: true, unix.SYS_FSYNC: true,
	unix.SYS_FDATASYNC: true, unix.SYS_RENAME: true, unix.SYS_RENAMEAT: true, unix.SYS_RENAMEAT2: true, unix.SYS_LINK: true,
	unix.SYS_LINKAT: true, unix.SYS_UNLINK: true, unix.SYS_UNLINKAT: true, unix.SYS_MKDIR: true, unix.SYS_MKDIRAT: true,
	unix.SYS_FTRUNCATE: true, unix.SYS_FLOCK: true,
}

func changes(r *syscall.PtraceRegs) bool {
	if r.Orig_rax == unix.SYS_OPENAT {
		return r.Rdx&(unix.O_WRONLY|unix.O_RDWR|unix.O_CREAT) != 0
	}
	return changing[r.Orig_rax]
}

// runKilledAt runs bin under ptrace and sends it SIGKILL as it enters
// its nth file-changing system call (counted across all its threads, in
// the order the kernel stops them). killed is false when the run ended
// before its nth such call.
func runKilledAt(t *testing.T, n int, bin string, args ...string) (killed bool) {
	t.Helper()
	runtime.LockOSThread() // ptrace requests must come from the tracer thread
	defer runtime.UnlockOSThread()
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, syscall.WALL, nil); err != nil {
		t.Fatal(err)
	}
	if err := syscall.PtraceSetOptions(pid, unix.PTRACE_O_TRACESYSGOOD|unix.PTRACE_O_TRACECLONE|unix.PTRACE_O_EXITKILL); err != nil {
		t.Fatal(err)
	}
	entering := map[int]bool{}
	count := 0
	for resume := pid; ; {
		if resume > 0 {
			syscall.PtraceSyscall(resume, 0)
		}
		wpid, err := syscall.Wait4(-1, &ws, syscall.WALL, nil)
		if errors.Is(err, syscall.ECHILD) {
			return killed
		}
		if err != nil {
			t.Fatal(err)
		}
		resume = 0
		switch {
		case !ws.Stopped():
			continue // a thread or the process ended
		case ws.StopSignal() == syscall.SIGTRAP|0x80:
			entering[wpid] = !entering[wpid]
			var regs syscall.PtraceRegs
			if entering[wpid] && syscall.PtraceGetRegs(wpid, &regs) == nil && changes(&regs) {
				if count++; count == n {
					syscall.Kill(pid, syscall.SIGKILL)
					killed = true
				}
			}
			resume = wpid
		case ws.StopSignal() == syscall.SIGTRAP || ws.StopSignal() == syscall.SIGSTOP:
			resume = wpid // a clone event, or a new thread's first stop
		default:
			syscall.PtraceSyscall(wpid, int(ws.StopSignal())) // deliver it (SIGURG: Go's preemption)
		}
	}
}

// leftTemps lists the temporary files under dirs.
func leftTemps(dirs ...string) []string {
	var out []string
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && strings.Contains(e.Name(), hostchange.TempMark) {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

// TestKilledApplyLeavesNoTempAfterRollback kills `dbmem apply --set
// vm.swappiness=10 --yes` (the built binary, against copies of the kernel
// files) before each of its file-changing system calls in turn (the
// journal's, the sysctl.d file's temporary file: create, write, fchmod,
// fchown, fsync, rename, the directory's fsync), until a run ends by
// itself; with and without a sysctl.d file to replace. After each kill,
// `dbmem rollback --yes` (or nothing, when the run was killed before its
// journal held a change) leaves vm.swappiness at 60, the sysctl.d file as
// it was, and no temporary file anywhere.
func TestKilledApplyLeavesNoTempAfterRollback(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("ptrace of the built binary and a file owned by root: run as root")
	}
	bin := buildDbmem(t)
	for _, existing := range []string{"", "vm.swappiness = 60\n"} {
		points := 0
		for n := 1; ; n++ {
			if n > 400 {
				t.Fatalf("apply still killed at its %dth file-changing call: it never ends?", n)
			}
			if !killedRun(t, bin, n, existing) {
				break
			}
			points++
		}
		t.Logf("sysctl.d file before: %q: %d kill points, each rolled back without a temporary file left", existing, points)
		if points < 20 {
			t.Errorf("only %d kill points: the tracer missed the run's writes", points)
		}
	}
}

// killedRun kills apply at its nth file-changing call, rolls back, and
// checks the host; false when the run ended before its nth call.
func killedRun(t *testing.T, bin string, n int, existing string) bool {
	t.Helper()
	o := fakeOptions(t)
	swappiness := filepath.Join(o.FS.Proc, "sys/vm/swappiness")
	os.WriteFile(swappiness, []byte("60\n"), 0o644)
	conf := o.hostPath("/etc/sysctl.d/60-dbmem.conf")
	if existing != "" {
		os.MkdirAll(filepath.Dir(conf), 0o755)
		os.WriteFile(conf, []byte(existing), 0o644)
	}
	roots := []string{"--proc", o.FS.Proc, "--sys", o.FS.Sys, "--root", o.FS.Root}
	args := append(roots, "apply", "--set", "vm.swappiness=10", "--yes", "--write-root", o.FilesRoot, "--journal-dir", o.JournalDir)
	if !runKilledAt(t, n, bin, args...) {
		return false
	}
	out, err := exec.Command(bin, append(roots, "rollback", "--yes", "--journal-dir", o.JournalDir)...).CombinedOutput()
	if err != nil && !strings.Contains(string(out), "nothing to roll back") {
		t.Errorf("killed at %d: rollback: %v\n%s", n, err, out)
	}
	got, _ := os.ReadFile(conf)
	if s := strings.TrimSpace(readFile(t, swappiness)); s != "60" || string(got) != existing {
		t.Errorf("killed at %d, rolled back: vm.swappiness %s, sysctl.d file %q (want 60, %q)", n, s, got, existing)
	}
	if left := leftTemps(o.FilesRoot, o.JournalDir); len(left) > 0 {
		t.Errorf("killed at %d, rolled back: temporary files left: %v\n%s", n, left, out)
	}
	return true
}
