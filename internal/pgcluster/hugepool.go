package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
)

// The machine-wide kernel-settings lock and journal of internal/hostchange,
// which internal/kerneltest takes too. A program that grows the huge page
// pool outside of tests (bench/fleet) takes the same lock, so tests
// changing kernel settings at the same time wait for it, and journals in
// the same journal, so that a run killed with SIGKILL is undone by the
// next holder of the lock.
var (
	KernelLockPath    = hostchange.RuntimePath(hostchange.KernelLock)
	KernelJournalPath = hostchange.RuntimePath(hostchange.KernelJournal)
	// poolFS is where the pool (vm.nr_hugepages) is read and written; a
	// variable so the tests can point it at plain files.
	poolFS = linux.DefaultFS()
)

// poolSetting is the default-size pool.
var poolSetting = hostchange.Sysctl("vm.nr_hugepages")

// HugePool is the default-size huge page pool grown by GrowHugePool. Hold
// it until the server using the pages has stopped, then Restore it.
type HugePool struct {
	// Before is vm.nr_hugepages before, Set what it was grown to.
	Before, Set int
	lock        *hostchange.Lock
	journal     *hostchange.Journal
}

// GrowHugePool waits (until ctx ends) for the kernel-settings lock, undoes
// what an interrupted holder left in the journal, journals vm.nr_hugepages
// and grows it by pages, compacting memory and retrying once when the
// kernel finds too few contiguous pages. On failure the pool is put back
// and the lock released.
func GrowHugePool(ctx context.Context, pages int) (*HugePool, error) {
	lock, err := hostchange.TakeLock(ctx, KernelLockPath)
	if err != nil {
		return nil, err
	}
	p := &HugePool{lock: lock}
	if err := p.journalPool(pages); err != nil {
		lock.Release()
		return nil, err
	}
	if err := p.grow(); err != nil {
		return nil, errors.Join(err, p.Restore())
	}
	return p, nil
}

// journalPool undoes a killed holder's journal, then journals the pool.
func (p *HugePool) journalPool(pages int) error {
	if _, err := hostchange.Replay(poolFS, KernelJournalPath); err != nil {
		return fmt.Errorf("undo what an interrupted test or benchmark left in %s: %w", KernelJournalPath, err)
	}
	var err error
	if p.journal, err = hostchange.NewJournal(KernelJournalPath, "dbmem huge page pool"); err != nil {
		return err
	}
	if p.Before, err = hostchange.ReadInt(poolSetting.Path(poolFS)); err != nil {
		return err
	}
	p.Set = p.Before + pages
	k := hostchange.Kernel{Setting: poolSetting, Before: strconv.Itoa(p.Before)}
	if err := p.journal.Add(hostchange.Entry{Kernel: &k}); err != nil {
		return fmt.Errorf("journal %s: %w", poolSetting, err)
	}
	return nil
}

// grow writes the new size, compacting memory once if it falls short.
func (p *HugePool) grow() error {
	got, err := hostchange.GrowPool(poolSetting.Path(poolFS), p.Set)
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
	if err := hostchange.Restore(poolSetting.Path(poolFS), strconv.Itoa(p.Before)); err != nil {
		return fmt.Errorf("restore vm.nr_hugepages to %d: %w (journal kept in %s)", p.Before, err, KernelJournalPath)
	}
	return p.journal.DropKernel(poolSetting)
}
