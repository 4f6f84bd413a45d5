package apply

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildDbmem builds the dbmem binary into a temporary directory.
func buildDbmem(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "dbmem")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/dbmem").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestConcurrentAppliesRealProcesses starts two `dbmem apply --yes` at
// once, again and again, against a copy of the kernel files: each either
// runs or is refused (exit 4, "is running"), and rolling back every run
// brings vm.swappiness back to where it started.
func TestConcurrentAppliesRealProcesses(t *testing.T) {
	bin := buildDbmem(t)
	o := fakeOptions(t)
	swappiness := filepath.Join(o.FS.Proc, "sys/vm/swappiness")
	os.WriteFile(swappiness, []byte("60\n"), 0o644)
	args := func(more ...string) []string {
		return append([]string{"--proc", o.FS.Proc, "--sys", o.FS.Sys, "--root", o.FS.Root}, more...)
	}
	for trial := 0; trial < 8; trial++ {
		var cmds []*exec.Cmd
		var errs []*bytes.Buffer
		for _, v := range []string{"20", "30"} {
			c := exec.Command(bin, args("apply", "--set", "vm.swappiness="+v, "--yes", "--write-root", o.FilesRoot, "--journal-dir", o.JournalDir)...)
			var e bytes.Buffer
			c.Stderr = &e
			cmds, errs = append(cmds, c), append(errs, &e)
		}
		for _, c := range cmds {
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		for i, c := range cmds {
			err := c.Wait()
			var ee *exec.ExitError
			switch {
			case err == nil:
			case errors.As(err, &ee) && ee.ExitCode() == 4 && strings.Contains(errs[i].String(), "is running and holds"):
			default:
				t.Errorf("trial %d: apply %d: %v: %s", trial, i, err, errs[i])
			}
		}
		for n := 0; ; n++ {
			out, err := exec.Command(bin, args("rollback", "--yes", "--journal-dir", o.JournalDir)...).CombinedOutput()
			if err != nil {
				if !strings.Contains(string(out), "nothing to roll back") {
					t.Errorf("trial %d: rollback: %v: %s", trial, err, out)
				}
				break
			}
			if n > 3 {
				t.Fatalf("trial %d: more rollbacks than runs", trial)
			}
		}
		if got := strings.TrimSpace(readFile(t, swappiness)); got != "60" {
			t.Fatalf("trial %d: vm.swappiness is %s after rolling back every run, want 60", trial, got)
		}
		mustNotExist(t, o.hostPath("/etc/sysctl.d/60-dbmem.conf"))
	}
}
