package safeexec

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/units"
)

// DefaultMaxBytes bounds what is kept of a program's output by default.
const DefaultMaxBytes = 64 << 20

// DefaultTimeout bounds one run by default.
const DefaultTimeout = time.Minute

// maxStderr is what is kept of standard error, for the error message.
const maxStderr = 4096

// Command is a program to run.
type Command struct {
	Name string   // a bare name (looked up in Dirs) or an absolute path
	Args []string // arguments
	Env  []string // added to Env()
	// MaxBytes bounds the standard output kept (default DefaultMaxBytes);
	// Head keeps its start, else its end (the newest lines of a log).
	MaxBytes int64
	Head     bool
	Timeout  time.Duration // default DefaultTimeout
}

// Cmd returns the exec.Cmd for c: the looked-up program, the cleared
// environment, the root directory as working directory.
func Cmd(ctx context.Context, c Command) (*exec.Cmd, error) {
	p, err := LookPath(c.Name)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, p, c.Args...)
	cmd.Dir, cmd.Env = "/", Env(c.Env...)
	cmd.WaitDelay = time.Second // a child's child holding the pipe does not keep us waiting
	return cmd, nil
}

// TruncatedError says the output went over its budget: only Kept bytes
// of Total were kept (its start or its end, as asked). What was kept is
// returned beside it.
type TruncatedError struct {
	Program     string
	Kept, Total int64
	Head        bool
}

func (e *TruncatedError) Error() string {
	which := "last"
	if e.Head {
		which = "first"
	}
	return fmt.Sprintf("%s printed %s: only its %s %s were kept (the output budget)",
		e.Program, units.Bytes(uint64(e.Total)), which, units.Bytes(uint64(e.Kept)))
}

// Output runs c and returns its bounded standard output. A failed run's
// error holds the first line of its standard error; a run whose output
// went over the budget returns what was kept with a *TruncatedError.
func Output(ctx context.Context, c Command) ([]byte, error) {
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd, err := Cmd(ctx, c)
	if err != nil {
		return nil, err
	}
	out := NewBuffer(c.MaxBytes, c.Head)
	stderr := NewBuffer(maxStderr, true)
	cmd.Stdout, cmd.Stderr = out, stderr
	what := strings.TrimSpace(c.Name + " " + strings.Join(c.Args, " "))
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(string(stderr.bytes())); msg != "" {
			msg, _, _ = strings.Cut(msg, "\n")
			return out.bytes(), fmt.Errorf("%s: %w: %s", what, err, msg)
		}
		return out.bytes(), fmt.Errorf("%s: %w", what, err)
	}
	if out.Truncated() {
		return out.bytes(), &TruncatedError{Program: what, Kept: int64(len(out.bytes())), Total: out.total, Head: c.Head}
	}
	return out.bytes(), nil
}

// Buffer keeps the first or the last max bytes written to it and
// counts them all: the bound on a child's output read through a pipe.
type Buffer struct {
	buf   []byte
	max   int64
	head  bool
	total int64
}

func (w *Buffer) Write(b []byte) (int, error) {
	w.total += int64(len(b))
	if w.head {
		if room := w.max - int64(len(w.buf)); room > 0 {
			w.buf = append(w.buf, b[:min(room, int64(len(b)))]...)
		}
		return len(b), nil
	}
	w.buf = append(w.buf, b...)
	if int64(len(w.buf)) > 2*w.max {
		w.buf = append(w.buf[:0:0], w.buf[int64(len(w.buf))-w.max:]...)
	}
	return len(b), nil
}

// NewBuffer keeps the first (head) or the last max bytes.
func NewBuffer(max int64, head bool) *Buffer { return &Buffer{max: max, head: head} }

// Total is how many bytes were written; Truncated whether some were dropped.
func (w *Buffer) Total() int64    { return w.total }
func (w *Buffer) Truncated() bool { return w.total > w.max }

// Bytes returns what was kept.
func (w *Buffer) Bytes() []byte { return w.bytes() }

func (w *Buffer) bytes() []byte {
	if int64(len(w.buf)) > w.max {
		return w.buf[int64(len(w.buf))-w.max:]
	}
	return w.buf
}

// Truncated returns err's *TruncatedError, if it is one.
func Truncated(err error) (*TruncatedError, bool) {
	var t *TruncatedError
	ok := errors.As(err, &t)
	return t, ok
}
