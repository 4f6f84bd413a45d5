package postmortem

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Runner runs a program and returns its standard output. Errors for a
// program that is not installed wrap exec.ErrNotFound.
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// maxOutput bounds what is kept of a command's output: its end.
const maxOutput = 64 << 20

// runTimeout bounds one command.
const runTimeout = time.Minute

// ExecRunner runs the program with LC_ALL=C (English messages and month
// names) and keeps the last 64 MiB of its output. A failure's error holds
// the start of its standard error.
func ExecRunner(ctx context.Context, name string, args ...string) ([]byte, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "SYSTEMD_PAGER=", "SYSTEMD_COLORS=0")
	cmd.WaitDelay = time.Second // a child's child holding the pipe does not keep us waiting
	out := &tailWriter{max: maxOutput}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &limitedBuffer{b: &stderr, max: 4096}
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return out.bytes(), fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
		}
		return out.bytes(), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, firstLine(msg))
	}
	return out.bytes(), nil
}

// limitedBuffer keeps the first max bytes written.
type limitedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// notInstalled reports whether err says the program does not exist.
func notInstalled(err error) bool { return errors.Is(err, exec.ErrNotFound) }
