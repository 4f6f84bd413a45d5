// Package hostchange is the one kit through which dbmem changes the host
// and keeps the state that lets it undo a change: where that state lives,
// the locks, the journal, its replay, and the atomic file writer.
//
//   - State lives only where the user running dbmem alone can write
//     (StateDir): RuntimeDir (/run/dbmem) for locks and the journals of
//     the lab, the tests' kernel guard and the huge page pool; DurableDir
//     (/var/lib/dbmem) for apply's journals, which must survive a reboot.
//     Every directory on the way is checked, and every state file is
//     opened without following a link and refused unless it is a regular
//     file of that user that no group or other user may write (OpenState).
//     A lock in such a directory cannot be held by anyone else.
//   - A Journal records, before each change, what undoes it: typed
//     entries for a kernel setting, a throwaway cluster and a memory
//     cgroup. Replay acts only on what dbmem itself could have written:
//     kernel settings from the allowlist of those dbmem plans (allow.go),
//     with values those settings accept (values.go); a cluster directory
//     whose inode, owner and birth match the journal and processes whose
//     pid, start time, owner and executable do (never a process found by
//     a string in its command line); the lab's memory cgroups. Journals in
//     the old, world-writable /run/lock are never read (Legacy).
//   - WriteFile replaces a file atomically (a temporary file in the same
//     directory, fsync, rename, mode and owner kept, the temporary removed
//     on every failure path and by RemoveTemps after a kill).
//     WriteOutput writes the files a user asks for (--html, --output,
//     --out-dir) without following a final link and never into a file
//     another user owns.
//
// internal/apply, internal/lab, internal/kerneltest and internal/pgcluster's
// huge page pool use it; docs/security.md lists the threats it stops.
package hostchange
