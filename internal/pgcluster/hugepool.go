package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/kernelset"
)

// The machine-wide lock and journal of internal/kernelset, which
// internal/kerneltest takes too. A program that grows the huge page pool
// outside of tests (bench/fleet) takes the same lock, so tests changing
// kernel settings at the same time wait for it, and journals in the same
// format, so that a run killed with SIGKILL is undone by the next holder of
// the lock.
var (
	KernelLockPath    = kernelset.DefaultLockPath
	KernelJournalPath = kernelset.DefaultJournalPath
	// nrHugepagesPath is the default-size pool (vm.nr_hugepages); a
	// variable so the tests can point it at a plain file.
	nrHugepagesPath = kernelset.NrHugepagesPath
)

// HugePool is the default-size huge page pool grown by GrowHugePool. Hold
// it until the server using the pages has stopped, then Restore it.
type HugePool struct {
	// Before is vm.nr_hugepages before, Set what it was grown to.
	Before, Set int
	lock        *kernelset.Lock
	journal     kernelset.Journal
}

// GrowHugePool waits (until ctx ends) for the kernel-settings lock, undoes
// what an interrupted holder left in the journal, journals vm.nr_hugepages
// and grows it by pages, compacting memory and retrying once when the
// kernel finds too few contiguous pages. On failure the pool is put back
// and the lock released.
func GrowHugePool(ctx context.Context, pages int) (*HugePool, error) {
	lock, err := kernelset.TakeLock(ctx, KernelLockPath)
	if err != nil {
		return nil, err
	}
	p := &HugePool{lock: lock, journal: kernelset.Journal(KernelJournalPath)}
	if err := p.journal.Replay(); err != nil {
		lock.Release()
		return nil, fmt.Errorf("undo what an interrupted test or benchmark left in %s: %w", KernelJournalPath, err)
	}
	if p.Before, err = kernelset.ReadInt(nrHugepagesPath); err != nil {
		lock.Release()
		return nil, err
	}
	p.Set = p.Before + pages
	if err := p.journal.Record(nrHugepagesPath, strconv.Itoa(p.Before)); err != nil {
		lock.Release()
		return nil, fmt.Errorf("journal %s: %w", nrHugepagesPath, err)
	}
	if err := p.grow(); err != nil {
		return nil, errors.Join(err, p.Restore())
	}
	return p, nil
}

// grow writes the new size, compacting memory once if it falls short.
func (p *HugePool) grow() error {
	got, err := kernelset.GrowPool(nrHugepagesPath, p.Set)
	if err == nil && got < p.Set {
		err = fmt.Errorf("asked the kernel for %d huge pages (%d + %d), it allocated %d: memory is too fragmented or too small",
			p.Set, p.Before, p.Set-p.Before, got)
	}
	return err
}

// Restore puts vm.nr_hugepages back, checks that the kernel reads back the
// old value, drops the journal entry and releases the lock. Calling it
// again does nothing.
func (p *HugePool) Restore() error {
	if p == nil || p.lock == nil {
		return nil
	}
	defer func() { p.lock.Release(); p.lock = nil }()
	if err := kernelset.Restore(nrHugepagesPath, strconv.Itoa(p.Before)); err != nil {
		return fmt.Errorf("restore vm.nr_hugepages to %d: %w (journal kept in %s)", p.Before, err, KernelJournalPath)
	}
	return p.journal.Drop(nrHugepagesPath)
}
