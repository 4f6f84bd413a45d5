package postmortem

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An endless device (random bytes or zeros) stops at the stream's byte
// budget, and is said not to be text: `postmortem --kernel-log
// /dev/urandom` used to read forever.
func TestEndlessDeviceStopsAtItsBudget(t *testing.T) {
	for _, dev := range []string{"/dev/urandom", "/dev/zero"} {
		l := fileLog(context.Background(), openLog, KindKernel, dev, dev, 1<<20)
		if l.State != StateFailed || !strings.Contains(l.Why, "not text") || !strings.Contains(l.Why, "stopped after 64 MiB, its byte budget") || l.Text != nil {
			t.Errorf("%s: %s %q (%d bytes kept)", dev, l.State, l.Why, len(l.Text))
		}
	}
}

// An endless text stream (a FIFO whose writer never stops) stops at the
// budget too, keeping its last lines.
func TestEndlessTextStreamStopsAtItsBudget(t *testing.T) {
	p := filepath.Join(t.TempDir(), "kern.fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte("Nov 27 10:00:00 host kernel: a line that never ends\n")
	done := make(chan struct{})
	go func() {
		buf := bytes.Repeat(line, 1000)
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
	}()
	defer func() { close(done); w.Close() }()
	l := fileLog(context.Background(), openLog, KindKernel, p, p, 1<<20)
	if l.State != StateRead || !strings.Contains(l.Why, "stopped after 64 MiB, its byte budget (the input never ended); the last") ||
		len(l.Text) == 0 || len(l.Text) > 1<<20 || !bytes.HasPrefix(l.Text, line) {
		t.Errorf("%s %q, %d bytes kept", l.State, l.Why, len(l.Text))
	}
}
