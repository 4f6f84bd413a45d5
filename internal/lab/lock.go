package lab

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
)

// lockHost takes the machine-wide kernel-settings lock at path (the one
// tests and benchmarks take), waiting until ctx ends. waiting is called once
// if another process holds it. An empty path means the caller holds the lock
// already: the returned nil lock releases nothing.
func lockHost(ctx context.Context, path string, waiting func()) (*hostchange.Lock, error) {
	if path == "" {
		return nil, nil
	}
	first, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	l, err := hostchange.TakeLock(first, path)
	cancel()
	if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
		return l, err
	}
	if waiting != nil {
		waiting()
	}
	return hostchange.TakeLock(ctx, path)
}

// takeHost takes the machine-wide lock (telling prog, and calling waiting,
// while another process holds it), then undoes what a killed lab run left
// in the journal at journalPath, and starts this run's journal there. It
// returns the lock to release, the journal and a note per change it undid
// (and about a journal of an older dbmem, ignored); on error the lock is
// already released.
func takeHost(ctx context.Context, fs linux.FS, lockPath, journalPath string, prog Progress, waiting func()) (*hostchange.Lock, *hostchange.Journal, []string, error) {
	l, err := lockHost(ctx, lockPath, func() {
		prog.Note("waiting for " + lockPath + ": another dbmem lab or a test is changing kernel settings")
		waiting()
	})
	if err != nil {
		return nil, nil, nil, err
	}
	var notes []string
	if note := hostchange.LegacyNote(hostchange.LegacyLabJournal); note != "" {
		notes = append(notes, note)
	}
	left, err := hostchange.Replay(fs, journalPath)
	for _, x := range left {
		notes = append(notes, fmt.Sprintf("restored what a killed lab run left: %s back to %s", x.What, x.After))
	}
	var j *hostchange.Journal
	if err == nil {
		j, err = hostchange.NewJournal(journalPath, "dbmem lab")
	}
	if err != nil {
		l.Release()
		return nil, nil, notes, err
	}
	return l, j, notes, nil
}
