package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// hostLock is the machine-wide lock held while the lab may change kernel
// settings.
type hostLock struct{ f *os.File }

// lockHost takes the flock at path, waiting until ctx ends. waiting is
// called once if another process holds it. An empty path means the caller
// holds the lock already.
func lockHost(ctx context.Context, path string, waiting func()) (*hostLock, error) {
	if path == "" {
		return &hostLock{}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	for told := false; ; {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &hostLock{f: f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for %s (another dbmem lab or a test changing kernel settings): %w", path, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (l *hostLock) unlock() {
	if l == nil || l.f == nil {
		return
	}
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
	l.f = nil
}
