package advise

import (
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// Checker is the diagnose engine as a sampler.Checker: Check with o, given
// every process of the host for its OOM ranking.
func Checker(o Options) func(s *snapshot.Snapshot, procs []linux.Process) []finding.Finding {
	return func(s *snapshot.Snapshot, procs []linux.Process) []finding.Finding {
		o := o
		o.Processes = procs
		return Check(s, o)
	}
}
