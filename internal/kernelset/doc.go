// Package kernelset records, changes and restores kernel settings (files
// under /proc/sys and /sys such as vm.nr_hugepages) on a shared machine.
//
// Every holder takes one machine-wide flock (DefaultLockPath) and, before
// changing a value, appends the old one to a journal (DefaultJournalPath):
// "path<TAB>old value" lines, oldest first. A holder that was killed before
// it restored its values leaves the journal behind; the next holder replays
// it, newest first, and removes it.
//
// internal/kerneltest builds the tests' guard on it, and internal/pgcluster
// the huge page pool that benchmarks grow outside of tests.
package kernelset
