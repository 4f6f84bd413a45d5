package apply

import "github.com/dbmem/dbmem/internal/render"

// FileFor prepares the change of one file that another package rendered
// (a pgbouncer.ini with new pool sizes): it reads what the file holds now,
// its mode and owner, and refuses a symbolic link or a directory reached
// through a link root did not make, as Prepare does for its own files.
// Run carries it out (backup, atomic write, journal) and PrepareRollback
// undoes it.
func FileFor(o Options, f render.File) (FileChange, error) {
	o = o.withDefaults()
	fc := FileChange{File: f, Target: o.hostPath(f.Path), UID: -1, GID: -1}
	err := fc.readCurrent()
	return fc, err
}

// UnifiedDiff is the diff apply shows for a file ("" when equal).
func UnifiedDiff(old, new, fromHeader, toHeader string) string {
	return unifiedDiff(old, new, fromHeader, toHeader)
}
