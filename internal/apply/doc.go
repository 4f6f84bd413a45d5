// Package apply changes a host to match a list of settings, and undoes it.
//
// Prepare reads the live values (/proc/sys, /sys) and the files that would be
// replaced, and returns a Plan: each live value's change, each file's
// unified diff, what is skipped (PostgreSQL settings without --postgres,
// the kernel command line without --boot) and what is refused because it
// would make the host worse (a CommitLimit below Committed_AS plus headroom,
// a huge page pool that leaves too little RAM, settings for an engine that
// is not running). Prepare changes nothing.
//
// Run carries a plan out: live values in a safe order (render.Order: a
// raised overcommit ratio, then the huge page pools, which lower
// CommitLimit, then a lowered ratio, then overcommit_memory), each read back and verified, then files written
// atomically with a timestamped backup next to each. Everything it does is
// journaled (JournalDir/<id>.json: every old value, every backup) before it
// is done, and a failed verification (a huge page pool the kernel could
// only partly allocate) rolls the whole run back. PrepareRollback turns a
// journal into the plan that restores the previous state exactly; running
// it is journaled too.
//
// apply never restarts a database: settings that need a restart are written
// to a file and reported.
package apply
