package hostchange

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Lock is a held flock on a state file. The file is in a state directory
// (StateDir), so no other user can open it, let alone hold it.
type Lock struct {
	f    *os.File
	path string
}

// BusyError says another process holds the lock.
type BusyError struct {
	Path string
	PID  int // the holder, as it wrote itself into the lock; 0 if unknown
}

func (e *BusyError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s is held by pid %d", e.Path, e.PID)
	}
	return e.Path + " is held by another process"
}

// TryLock takes the lock at path at once, or returns a *BusyError.
func TryLock(path string) (*Lock, error) {
	f, err := openLock(path)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &BusyError{Path: path, PID: holderPID(f)}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return held(f, path), nil
}

// TakeLock takes the lock at path, waiting while another process holds
// it. With a context that can end it polls, so that ctx ends the wait
// (the error then says what it waited for); otherwise it blocks.
func TakeLock(ctx context.Context, path string) (*Lock, error) {
	f, err := openLock(path)
	if err != nil {
		return nil, err
	}
	if err := flock(ctx, f); err != nil {
		f.Close()
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("waiting for %s (a lab run, a test or a benchmark changing kernel settings): %w", path, err)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return held(f, path), nil
}

func openLock(path string) (*os.File, error) {
	if err := StateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := OpenState(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	return f, nil
}

func flock(ctx context.Context, f *os.File) error {
	if ctx.Done() == nil {
		return syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// held writes the holder's pid into the lock, for a BusyError.
func held(f *os.File, path string) *Lock {
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &Lock{f: f, path: path}
}

func holderPID(f *os.File) int {
	b := make([]byte, 16)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return pid
}

// Path is the lock's file.
func (l *Lock) Path() string { return l.path }

// Release unlocks; calling it again, or on a nil Lock, does nothing.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	l.f.Truncate(0)
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
	l.f = nil
}
