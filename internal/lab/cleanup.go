package lab

import (
	"errors"
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/kernelset"
)

// cleanup stops and removes the cluster, restores the pool and removes the
// journal, with a fresh context: the run's may be cancelled.
func (r *run) cleanup() error {
	r.end()
	r.prog.Begin("restore the host", 0)
	defer r.prog.End()
	var errs []error
	if r.c != nil {
		x := HostChange{What: "cluster " + r.c.Dir, Before: "absent", Set: "created", After: "absent", OK: true}
		if err := r.c.Remove(); err != nil {
			x.OK, x.After, x.Error = false, "present", err.Error()
			errs = append(errs, fmt.Errorf("remove cluster %s: %w", r.c.Dir, err))
		}
		r.res.Restored = append(r.res.Restored, x)
	}
	for i := len(r.jr.Changes) - 1; i >= 0; i-- {
		x := undo(r.jr.Changes[i])
		r.res.Restored = append(r.res.Restored, x)
		if !x.OK {
			errs = append(errs, fmt.Errorf("restore %s: %s (journal kept at %s; run dbmem lab --restore)", x.What, x.Error, r.opt.JournalPath))
		}
	}
	if r.res.Pool != nil {
		r.res.Pool.After, _ = kernelset.ReadInt(r.fs.SysctlPath("vm.nr_hugepages"))
	}
	if len(errs) == 0 && r.jr.PID != 0 {
		errs = append(errs, removeJournal(r.opt.JournalPath))
	}
	r.res.FinishedAt = time.Now().UTC()
	r.res.Elapsed = r.res.FinishedAt.Sub(r.res.StartedAt)
	return errors.Join(errs...)
}
