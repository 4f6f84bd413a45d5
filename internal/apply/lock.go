package apply

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// DefaultLockPath is the machine-wide lock that apply and rollback hold on
// the live host, next to internal/kernelset's (a flock in /run/lock).
const DefaultLockPath = "/run/lock/dbmem-apply.lock"

// BusyError says another apply or rollback holds the lock: nothing was
// read for a plan or changed.
type BusyError struct {
	Path string
	PID  int // the holder, when it wrote its pid
}

func (e *BusyError) Error() string {
	who := "another dbmem apply or rollback"
	if e.PID > 0 {
		who += fmt.Sprintf(" (pid %d)", e.PID)
	}
	return fmt.Sprintf("%s is running and holds %s: nothing was changed; run again when it has finished (two runs at once would journal each other's values and could not be rolled back)", who, e.Path)
}

// held is a taken lock.
type held struct{ f *os.File }

// lockPath is the machine-wide lock for the live host, and one per
// journal directory for a run against other roots (a test, a review).
func (o Options) lockPath() string {
	switch {
	case o.LockPath != "":
		return o.LockPath
	case o.FS.IsLive() && filepath.Clean(o.FilesRoot) == "/":
		return DefaultLockPath
	}
	return filepath.Join(o.JournalDir, ".lock")
}

// Lock takes the lock of apply and rollback for o, or returns a BusyError
// at once, and removes what an interrupted run left in the journal
// directory. Hold it from Prepare to the end of Run: pass the returned
// Options to both, then call release.
func Lock(o Options) (Options, func(), error) {
	o = o.withDefaults()
	path := o.lockPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return o, nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return o, nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return o, nil, &BusyError{Path: path, PID: holderPID(f)}
		}
		return o, nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	h := &held{f: f}
	o.lock = h
	removeTemps(o.JournalDir, "")
	return o, h.release, nil
}

func holderPID(f *os.File) int {
	b := make([]byte, 16)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return pid
}

func (h *held) release() {
	if h.f == nil {
		return
	}
	h.f.Truncate(0)
	syscall.Flock(int(h.f.Fd()), syscall.LOCK_UN)
	h.f.Close()
	h.f = nil
}

// tempMark is in the name of every temporary file writeAtomic creates.
const tempMark = ".dbmem-tmp-"

// removeTemps removes the temporary files an interrupted writeAtomic left
// in dir (those of base only, when base is set) and returns their paths.
// They are dbmem's by name; os.Remove unlinks, it follows no link.
func removeTemps(dir, base string) []string {
	pattern := "." + base + "*" + tempMark + "*"
	if base != "" {
		pattern = "." + base + tempMark + "*"
	}
	names, _ := filepath.Glob(filepath.Join(dir, pattern))
	var out []string
	for _, n := range names {
		if os.Remove(n) == nil {
			out = append(out, n)
		}
	}
	return out
}
