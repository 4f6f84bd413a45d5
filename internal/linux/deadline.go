package linux

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// ErrReadTimeout is wrapped by the error of a read that did not finish in
// time (Deadlines).
var ErrReadTimeout = errors.New("no answer in time")

// Deadlines bounds every read of an FS that has them: a read that has not
// finished after Timeout is abandoned (its goroutine is left blocked in the
// kernel) and returns an error wrapping ErrReadTimeout. A read of /proc can
// block for good (cmdline, maps and smaps wait for a process's mmap lock,
// which a local user can hold), and a FIFO or a stuck file system blocks
// an open.
//
// While an abandoned read hangs, reads of the same process (/proc/PID/...)
// or, elsewhere, of the same file fail at once, so hung reads never pile
// up: at most one per process or file, and at most MaxStuck in all (then
// every read fails at once until one returns). Safe for concurrent use.
type Deadlines struct {
	Timeout  time.Duration
	MaxStuck int
	// OnStuck, when set, is called (without the lock held) when a read is
	// abandoned, with the path and the key skipped from now on.
	OnStuck func(path, key string)

	mu       sync.Mutex
	stuck    map[string]StuckRead // by key
	timeouts uint64
}

// StuckRead is a read still hanging.
type StuckRead struct {
	Path  string    `json:"path"`
	Since time.Time `json:"since"`
}

// NewDeadlines returns Deadlines of timeout per read, at most 1,024 stuck.
func NewDeadlines(timeout time.Duration) *Deadlines {
	return &Deadlines{Timeout: timeout, MaxStuck: 1024}
}

// Timeouts is how many reads were abandoned since the start.
func (d *Deadlines) Timeouts() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.timeouts
}

// Stuck lists the reads still hanging, oldest first.
func (d *Deadlines) Stuck() []StuckRead {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]StuckRead, 0, len(d.stuck))
	for _, s := range d.stuck {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Since.Before(out[j].Since) })
	return out
}

// do runs read with the deadline; key groups the reads skipped while it
// hangs.
func (d *Deadlines) do(path, key string, read func() error) error {
	if err := d.refuse(path, key); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- read() }()
	t := time.NewTimer(d.Timeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
	}
	d.abandon(path, key, done)
	return fmt.Errorf("%w after %s: the read is left hanging and %s is skipped until it returns", ErrReadTimeout, d.Timeout, key)
}

func (d *Deadlines) refuse(path, key string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.stuck[key]; ok {
		return fmt.Errorf("%w: skipped, a read of %s has hung since %s", ErrReadTimeout, s.Path, s.Since.Format(time.RFC3339))
	}
	if d.MaxStuck > 0 && len(d.stuck) >= d.MaxStuck {
		return fmt.Errorf("%w: skipped, %d reads are hanging", ErrReadTimeout, len(d.stuck))
	}
	return nil
}

// abandon records the hung read and forgets it when it returns.
func (d *Deadlines) abandon(path, key string, done <-chan error) {
	d.mu.Lock()
	if d.stuck == nil {
		d.stuck = map[string]StuckRead{}
	}
	d.stuck[key] = StuckRead{Path: path, Since: time.Now()}
	d.timeouts++
	d.mu.Unlock()
	if d.OnStuck != nil {
		d.OnStuck(path, key)
	}
	go func() {
		<-done
		d.mu.Lock()
		delete(d.stuck, key)
		d.mu.Unlock()
	}()
}

// nonBlocking are the /proc files a live kernel answers without waiting on
// a lock a process can hold (no mmap lock): the per-tick reads of watch and
// the exporter, read inline, without the deadline's goroutine and timer
// (which cost tens of microseconds a read on a loaded host).
var nonBlocking = map[string]bool{"stat": true, "status": true, "statm": true, "oom_score": true, "oom_score_adj": true,
	"meminfo": true, "vmstat": true, "loadavg": true, "uptime": true}

// bounds reports whether a read of path needs the deadline: everything
// but nonBlocking files of a live procfs (a fixture or a --proc tree can
// hold a FIFO anywhere).
func (fs FS) bounds(path string) bool {
	if !fs.IsLive() {
		return true
	}
	rel, err := filepath.Rel(fs.Proc, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return true
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	switch {
	case len(parts) == 1:
		return !nonBlocking[parts[0]]
	case len(parts) == 2 && strings.Trim(parts[0], "0123456789") == "":
		return !nonBlocking[parts[1]]
	}
	return true
}

// deadlineKey is what a hung read of path makes the reader skip: the
// process directory for /proc/PID/..., the path itself elsewhere.
func (fs FS) deadlineKey(path string) string {
	rel, err := filepath.Rel(fs.Proc, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return path
	}
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	if first != "" && strings.Trim(first, "0123456789") == "" {
		return filepath.Join(fs.Proc, first)
	}
	return path
}
