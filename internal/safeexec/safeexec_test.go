package safeexec

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// poison sets variables a child must never see.
func poison(t *testing.T) {
	t.Setenv("DBMEM_SECRET", "hunter2")
	t.Setenv("LD_PRELOAD", "/nonexistent/evil.so")
	t.Setenv("PGPASSWORD", "secret")
}

func TestOutputClearsEnvironment(t *testing.T) {
	poison(t)
	out, err := Output(context.Background(), Command{Name: "env", Env: []string{"SYSTEMD_PAGER="}})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := Env("SYSTEMD_PAGER=")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("child environment = %q, want exactly %q", got, want)
	}
}

// TestChildEnvironFromProc reads the environment the kernel gave a
// running child.
func TestChildEnvironFromProc(t *testing.T) {
	poison(t)
	cmd, err := Cmd(context.Background(), Command{Name: "sleep", Args: []string{"30"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	env := execedEnviron(t, cmd.Process.Pid, cmd.Path)
	for _, bad := range []string{"DBMEM_SECRET", "LD_PRELOAD", "PGPASSWORD", "hunter2"} {
		if strings.Contains(env, bad) {
			t.Errorf("/proc/%d/environ carries %s: %q", cmd.Process.Pid, bad, env)
		}
	}
	if !strings.Contains(env, Path) || !strings.HasPrefix(cmd.Path, "/") {
		t.Errorf("child %s environ %q: want an absolute program and %s", cmd.Path, env, Path)
	}
}

func TestLookPathIgnoresPATH(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "dmesg")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho planted\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	p, err := LookPath("dmesg")
	if err != nil {
		t.Skipf("dmesg not installed: %v", err)
	}
	if p == fake || !slices.Contains(Dirs, filepath.Dir(p)) {
		t.Fatalf("LookPath(dmesg) = %s, want one of %v, never $PATH", p, Dirs)
	}
	if _, err := LookPath("no-such-program-dbmem"); !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("missing program: %v, want exec.ErrNotFound", err)
	}
	if _, err := LookPath("bin/sh"); err == nil {
		t.Fatal("a relative path was accepted")
	}
}

func TestRootRefusesWritableDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the check applies to root only")
	}
	dir := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil { // not sticky: anyone may replace the program
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\ntrue\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Output(context.Background(), Command{Name: prog})
	if err == nil || !strings.Contains(err.Error(), "may be written by others") {
		t.Fatalf("program in a 0777 directory: %v, want a refusal", err)
	}
	if err := os.Chown(prog, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := LookPath(prog); err == nil || !strings.Contains(err.Error(), "not root") {
		t.Fatalf("program owned by nobody: %v, want a refusal", err)
	}
}

func TestOutputBudget(t *testing.T) {
	out, err := Output(context.Background(), Command{Name: "seq", Args: []string{"100000"}, MaxBytes: 1000})
	tr, ok := Truncated(err)
	if !ok {
		t.Fatalf("err = %v, want a TruncatedError", err)
	}
	if len(out) != 1000 || tr.Kept != 1000 || tr.Total != 588895 || !strings.HasSuffix(string(out), "\n100000\n") {
		t.Fatalf("kept %d bytes (err %v), ending %q", len(out), err, out[max(0, len(out)-20):])
	}
	if !strings.Contains(err.Error(), "only its last") {
		t.Errorf("message %q does not say what was kept", err)
	}
	out, err = Output(context.Background(), Command{Name: "seq", Args: []string{"100000"}, MaxBytes: 10, Head: true})
	if _, ok := Truncated(err); !ok || string(out) != "1\n2\n3\n4\n5\n" {
		t.Fatalf("head: %q, %v", out, err)
	}
	if out, err := Output(context.Background(), Command{Name: "seq", Args: []string{"3"}}); err != nil || string(out) != "1\n2\n3\n" {
		t.Fatalf("under the budget: %q, %v", out, err)
	}
}

func TestOutputFailureAndTimeout(t *testing.T) {
	_, err := Output(context.Background(), Command{Name: "ls", Args: []string{"/no/such/dir"}})
	if err == nil || !strings.Contains(err.Error(), "No such file") {
		t.Fatalf("failing run: %v, want its stderr", err)
	}
	_, err = Output(context.Background(), Command{Name: "sleep", Args: []string{"60"}, Timeout: 200 * time.Millisecond})
	if err == nil {
		t.Fatal("a run past its timeout succeeded")
	}
}

// execedEnviron reads the child's environ once it runs program: between
// fork and the end of exec /proc/PID/environ is empty (it read so right
// after Start).
func execedEnviron(t *testing.T, pid int, program string) string {
	t.Helper()
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	deadline := time.Now().Add(30 * time.Second)
	for {
		// exe changes early in execve, the new stack's environment
		// later: wait for both (a cleared environment still holds PATH).
		exe, _ := os.Readlink(filepath.Join(dir, "exe"))
		b, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil {
			t.Fatal(err)
		}
		if exe == program && len(b) > 0 {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d never ran %s with an environment (exe %s, environ %q)", pid, program, exe, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
