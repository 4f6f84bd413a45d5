package hostchange

import (
	"os"
	"sync"
)

// Journals older dbmem versions kept in /run/lock, where every user can
// write (mode 1777): they are never read, let alone replayed. Each names
// what its writer changed, for a person to check by hand.
const (
	LegacyLabJournal    = "/run/lock/dbmem-lab.journal"
	LegacyKernelJournal = "/run/lock/dbmem-kerneltest.journal"
)

var legacyChecks = map[string]string{
	LegacyLabJournal: "vm.nr_hugepages, vm.overcommit_memory and vm.overcommit_ratio, " +
		"a postmaster of a /tmp/dbmem-pg-* directory and a memory cgroup dbmem-lab-oom-*",
	LegacyKernelJournal: "vm.nr_hugepages and the sysctls the tests change (vm.swappiness, vm.hugetlb_shm_group, vm.nr_overcommit_hugepages)",
}

var legacySaid sync.Map

// LegacyNote says, once per process, that the old journal at path (one of
// the Legacy* paths) exists and was ignored, and what to check by hand;
// "" when there is none or it was said already. Nothing of the file is
// read: only the fixed path is printed.
func LegacyNote(path string) string {
	if _, err := os.Lstat(path); err != nil {
		return ""
	}
	if _, said := legacySaid.LoadOrStore(path, true); said {
		return ""
	}
	return "ignored " + path + ": dbmem no longer reads journals from /run/lock, where any user can write (its journals are in " +
		RuntimeDir + " now). If an older dbmem was killed while it changed the host, check by hand " + legacyChecks[path] +
		", then remove the file"
}
