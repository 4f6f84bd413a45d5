package pgcluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The machine-wide lock and journal of internal/kerneltest. A program that
// grows the huge page pool outside of tests (bench/fleet) takes the same
// lock, so tests changing kernel settings at the same time wait for it, and
// journals in the same format ("path<TAB>old value" lines), so that a run
// killed with SIGKILL is undone by the next holder of the lock.
var (
	KernelLockPath    = "/run/lock/dbmem-kerneltest.lock"
	KernelJournalPath = "/run/lock/dbmem-kerneltest.journal"
	// nrHugepagesPath is the default-size pool (vm.nr_hugepages); a
	// variable so the tests can point it at a plain file.
	nrHugepagesPath = "/proc/sys/vm/nr_hugepages"
)

// HugePool is the default-size huge page pool grown by GrowHugePool. Hold
// it until the server using the pages has stopped, then Restore it.
type HugePool struct {
	// Before is vm.nr_hugepages before, Set what it was grown to.
	Before, Set int
	lock        *os.File
}

// GrowHugePool waits (until ctx ends) for the kernel-settings lock, undoes
// what an interrupted holder left in the journal, journals vm.nr_hugepages
// and grows it by pages, compacting memory and retrying once when the
// kernel finds too few contiguous pages. On failure the pool is put back
// and the lock released.
func GrowHugePool(ctx context.Context, pages int) (*HugePool, error) {
	f, err := lockKernel(ctx)
	if err != nil {
		return nil, err
	}
	p := &HugePool{lock: f}
	if err := replayKernelJournal(); err != nil {
		p.unlock()
		return nil, fmt.Errorf("undo what an interrupted test or benchmark left in %s: %w", KernelJournalPath, err)
	}
	if p.Before, err = readPool(); err != nil {
		p.unlock()
		return nil, err
	}
	p.Set = p.Before + pages
	if err := appendKernelJournal(nrHugepagesPath, p.Before); err != nil {
		p.unlock()
		return nil, fmt.Errorf("journal %s: %w", nrHugepagesPath, err)
	}
	if err := p.grow(); err != nil {
		return nil, errors.Join(err, p.Restore())
	}
	return p, nil
}

// grow writes the new size, compacting memory once if it falls short.
func (p *HugePool) grow() error {
	got, err := writePool(p.Set)
	if err == nil && got < p.Set {
		os.WriteFile("/proc/sys/vm/compact_memory", []byte("1\n"), 0o200)
		got, err = writePool(p.Set)
	}
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
	defer p.unlock()
	got, err := writePool(p.Before)
	if err == nil && got != p.Before {
		err = fmt.Errorf("the kernel reads back %d", got)
	}
	if err != nil {
		return fmt.Errorf("restore vm.nr_hugepages to %d: %w (journal kept in %s)", p.Before, err, KernelJournalPath)
	}
	return dropKernelJournal(nrHugepagesPath)
}

func (p *HugePool) unlock() {
	syscall.Flock(int(p.lock.Fd()), syscall.LOCK_UN)
	p.lock.Close()
	p.lock = nil
}

// lockKernel takes the flock, polling so that ctx can end the wait.
func lockKernel(ctx context.Context) (*os.File, error) {
	f, err := os.OpenFile(KernelLockPath, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open kernel-settings lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", KernelLockPath, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for %s (a test or benchmark changing kernel settings): %w", KernelLockPath, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func readPool() (int, error) {
	b, err := os.ReadFile(nrHugepagesPath)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("%s holds %q, not a number", nrHugepagesPath, b)
	}
	return n, nil
}

// writePool sets the pool and returns what the kernel reads back.
func writePool(n int) (int, error) {
	if err := os.WriteFile(nrHugepagesPath, []byte(strconv.Itoa(n)+"\n"), 0o644); err != nil {
		return 0, fmt.Errorf("write %d to %s: %w", n, nrHugepagesPath, err)
	}
	return readPool()
}

// journalLines reads the journal: [path, old value] pairs, oldest first.
func journalLines() [][2]string {
	f, err := os.Open(KernelJournalPath)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if path, old, ok := strings.Cut(sc.Text(), "\t"); ok {
			out = append(out, [2]string{path, old})
		}
	}
	return out
}

func appendKernelJournal(path string, old int) error {
	f, err := os.OpenFile(KernelJournalPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s\t%d\n", path, old)
	return errors.Join(err, f.Sync(), f.Close())
}

// dropKernelJournal removes the newest entry for path.
func dropKernelJournal(path string) error {
	lines := journalLines()
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i][0] == path {
			lines = append(lines[:i], lines[i+1:]...)
			break
		}
	}
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%s\t%s\n", l[0], l[1])
	}
	return os.WriteFile(KernelJournalPath, []byte(b.String()), 0o644)
}

// replayKernelJournal restores, newest first, what an interrupted holder
// left, and removes the journal.
func replayKernelJournal() error {
	lines := journalLines()
	for i := len(lines) - 1; i >= 0; i-- {
		path, old := lines[i][0], lines[i][1]
		if err := os.WriteFile(path, []byte(old+"\n"), 0o644); err != nil {
			return fmt.Errorf("restore %s to %s: %w", path, old, err)
		}
	}
	if err := os.Remove(KernelJournalPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
