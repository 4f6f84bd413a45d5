package lab

import (
	"context"
	"errors"
	"time"

	"github.com/dbmem/dbmem/internal/kernelset"
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
