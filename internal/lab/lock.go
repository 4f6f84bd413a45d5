package lab

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/kernelset"
	"github.com/dbmem/dbmem/internal/linux"
)

// lockHost takes the machine-wide kernel-settings lock at path (the one
// tests and benchmarks take), waiting until ctx ends. waiting is called once
// if another process holds it. An empty path means the caller holds the lock
// already: the returned nil lock releases nothing.
func lockHost(ctx context.Context, path string, waiting func()) (*kernelset.Lock, error) {
	if path == "" {
		return nil, nil
	}
	first, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	l, err := kernelset.TakeLock(first, path)
	cancel()
	if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
		return l, err
	}
	if waiting != nil {
		waiting()
	}
	return kernelset.TakeLock(ctx, path)
}

// takeHost takes the machine-wide lock (telling prog, and calling waiting,
// while another process holds it), then undoes what a killed lab run left
// in the journal at journalPath. It returns the lock to release and a
// note per change it undid; on error the lock is already released.
func takeHost(ctx context.Context, fs linux.FS, lockPath, journalPath string, prog Progress, waiting func()) (*kernelset.Lock, []string, error) {
	l, err := lockHost(ctx, lockPath, func() {
		prog.Note("waiting for " + lockPath + ": another dbmem lab or a test is changing kernel settings")
		waiting()
	})
	if err != nil {
		return nil, nil, err
	}
	left, err := replay(fs, journalPath)
	var notes []string
	for _, x := range left {
		notes = append(notes, fmt.Sprintf("restored what a killed lab run left: %s back to %s", x.What, x.After))
	}
	if err != nil {
		l.Release()
		return nil, notes, err
	}
	return l, notes, nil
}
