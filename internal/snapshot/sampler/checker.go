package sampler

import (
	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// AdviseChecker is the diagnose engine as a Checker: advise.Check with o,
// given every process of the host for its OOM ranking.
func AdviseChecker(o advise.Options) Checker {
	return func(s *snapshot.Snapshot, procs []linux.Process) []advise.Finding {
		o := o
		o.Processes = procs
		return advise.Check(s, o)
	}
}
