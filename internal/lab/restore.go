package lab

import (
	"context"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
)

// Restore undoes what a killed lab run left, as recorded in the journal at
// journalPath (hostchange.Replay): it stops and removes the run's cluster
// and memory cgroup, then restores every kernel setting the run changed,
// newest first, and removes the journal. It takes the machine-wide lock at
// lockPath ("" when the caller holds it). With no journal it returns no
// entries and no error; notes say what else it found (a journal an older
// dbmem left in /run/lock, ignored).
func Restore(ctx context.Context, fs linux.FS, journalPath, lockPath string) (done []HostChange, notes []string, err error) {
	l, err := lockHost(ctx, lockPath, nil)
	if err != nil {
		return nil, nil, err
	}
	defer l.Release()
	if note := hostchange.LegacyNote(hostchange.LegacyLabJournal); note != "" {
		notes = append(notes, note)
	}
	done, err = hostchange.Replay(fs, journalPath)
	return done, notes, err
}
