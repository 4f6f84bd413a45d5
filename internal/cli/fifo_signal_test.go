package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSigtermEndsCommandsOnFIFOs: the built binary, with PGPASSFILE
// naming a FIFO nobody writes and a --proc tree holding a FIFO for a
// backend's cmdline (both used to block open(2) for ever, SIGTERM
// ignored), either ends by itself or ends on SIGTERM, well within a
// minute. The live report reads PGPASSFILE for each server it may send a
// password to; the tree's commands read the FIFO.
func TestSigtermEndsCommandsOnFIFOs(t *testing.T) {
	bin := builtDBMem(t)
	fifo := filepath.Join(t.TempDir(), "pgpass")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	host := hungHost(t)
	runs := map[string][]string{
		"report (live, PGPASSFILE)": {"report"},
		"report --proc":             append(append([]string{}, host...), "report"),
		"report --json --proc":      append(append([]string{}, host...), "report", "--json"),
		"check --proc":              append(append([]string{}, host...), "check"),
		"plan --proc":               append(append([]string{}, host...), "plan"),
		"capture --proc":            append(append([]string{}, host...), "capture", "-o", filepath.Join(out, "c.tar.gz")),
	}
	for name, args := range runs {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "PGPASSFILE="+fifo)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			t.Logf("%s ended by itself (%v)", name, err)
			continue
		case <-time.After(2 * time.Second):
		}
		sent := time.Now()
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			t.Logf("%s ended %v after SIGTERM (%v)", name, time.Since(sent).Round(time.Millisecond), err)
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			<-done
			t.Errorf("%s still ran a minute after SIGTERM", name)
		}
	}
}

func TestSignalGrace(t *testing.T) {
	for args, want := range map[string]time.Duration{
		"report": defaultGrace, "--proc /x check": defaultGrace, "watch": defaultGrace, "postmortem": defaultGrace,
		"apply --plan x": 0, "rollback": 0, "lab": 0, "lab oom": 0, "pooler set default_pool_size=5": 0, "pooler rollback": 0,
	} {
		if got := SignalGrace(strings.Fields(args)); got != want {
			t.Errorf("%s: %v, want %v", args, got, want)
		}
	}
}
