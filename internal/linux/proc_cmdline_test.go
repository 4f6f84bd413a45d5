package linux

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestReadCmdlineBounded runs a real process whose command line is 1 MiB
// (eight 128 KiB arguments): ReadCmdline reads MaxCmdlineBytes of it, the
// first arguments intact, and a Tap records no more than that.
func TestReadCmdlineBounded(t *testing.T) {
	arg := strings.Repeat("a", 128<<10-1)
	args := []string{"-c", "sleep 60", "sh"}
	for i := 0; i < 8; i++ {
		args = append(args, arg)
	}
	cmd := exec.Command("sh", args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	fs := DefaultFS()
	var got []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var err error
		if got, err = ReadCmdline(fs, cmd.Process.Pid); err == nil && len(got) > 3 {
			break // exec done: the new command line is in place
		}
	}
	if len(got) < 4 || got[0] != "sh" || got[1] != "-c" || got[2] != "sleep 60" || got[3] != "sh" || got[4] != arg {
		t.Fatalf("first arguments not intact: %d arguments, %.40q", len(got), got)
	}
	if total := len(strings.Join(got, "\x00")); total != MaxCmdlineBytes {
		t.Errorf("read %d bytes of a 1 MiB command line, want at most %d and the whole bound", total, MaxCmdlineBytes)
	}
	if n := len(got); n != 4+2 || len(got[n-1]) >= len(arg) {
		t.Errorf("want the first 256 KiB: 4 short arguments, one whole 128 KiB one and one cut; got %d, the last %d bytes", n, len(got[n-1]))
	}
}
