package apply

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/dbmem/dbmem/internal/hostchange"
)

// DefaultLockPath is the machine-wide lock that apply and rollback hold on
// the live host, in root's state directory (hostchange.RuntimeDir), which
// no other user can write: nobody else can hold it.
var DefaultLockPath = filepath.Join(hostchange.RuntimeDir, hostchange.ApplyLock)

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
// at once, and removes the temporary files an interrupted run left in the
// journal directory. The journal directory must be one only the user
// running dbmem can write (hostchange.StateDir). Hold the lock from
// Prepare to the end of Run: pass the returned Options to both, then call
// release.
func Lock(o Options) (Options, func(), error) {
	o = o.withDefaults()
	if err := hostchange.StateDir(o.JournalDir); err != nil {
		return o, nil, err
	}
	l, err := hostchange.TryLock(o.lockPath())
	var busy *hostchange.BusyError
	if errors.As(err, &busy) {
		return o, nil, &BusyError{Path: busy.Path, PID: busy.PID}
	}
	if err != nil {
		return o, nil, err
	}
	o.lock = l
	hostchange.RemoveTemps(o.JournalDir, "")
	backups, _ := filepath.Glob(filepath.Join(o.JournalDir, "*.files"))
	for _, d := range backups {
		hostchange.RemoveTemps(d, "")
	}
	return o, l.Release, nil
}
