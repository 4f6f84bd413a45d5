package lab

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
)

// A lab run journals what it changes (internal/hostchange), before it
// changes it, so that a run killed with SIGKILL (or a crash) is undone by
// the next `dbmem lab` or by `dbmem lab --restore`: its throwaway
// cluster, the memory cgroup of `lab oom`, and the kernel settings it
// sets (vm.nr_hugepages; vm.overcommit_ratio and vm.overcommit_memory with
// --strict-overcommit).

// CgroupPrefix starts the name of every memory cgroup the lab makes.
const CgroupPrefix = hostchange.CgroupPrefix

// journalCluster is pgcluster's Journal hook: the cluster's entry is
// added when its directory is made, and saved again when its postmaster
// starts or stops.
func journalCluster(j *hostchange.Journal) func(*hostchange.Cluster) error {
	return func(c *hostchange.Cluster) error {
		for _, e := range j.Entries {
			if e.Cluster == c {
				return j.Save()
			}
		}
		return j.Add(hostchange.Entry{Cluster: c})
	}
}

// newestKernel is the journal's newest entry for s, nil if none.
func newestKernel(j *hostchange.Journal, s hostchange.Setting) *hostchange.Kernel {
	for i := len(j.Entries) - 1; i >= 0; i-- {
		if k := j.Entries[i].Kernel; k != nil && k.Setting == s {
			return k
		}
	}
	return nil
}

// undoKernel restores the kernel settings of the journal, newest first,
// as a run's cleanup does; the errors say the journal is kept.
func undoKernel(fs linux.FS, j *hostchange.Journal) ([]HostChange, []error) {
	var out []HostChange
	var errs []error
	for i := len(j.Entries) - 1; i >= 0; i-- {
		k := j.Entries[i].Kernel
		if k == nil {
			continue
		}
		x := k.Undo(fs)
		out = append(out, x)
		if !x.OK {
			errs = append(errs, fmt.Errorf("restore %s: %s (journal kept at %s; run dbmem lab --restore)", x.What, x.Error, j.Path()))
		}
	}
	return out, errs
}
