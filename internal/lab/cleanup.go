package lab

import (
	"errors"
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
)

// cleanup stops and removes the cluster, restores the pool and removes the
// journal, with a fresh context: the run's may be cancelled.
func (r *run) cleanup() error {
	r.steps.end()
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
	if r.jr != nil {
		undone, uerrs := undoKernel(r.fs, r.jr)
		r.res.Restored, errs = append(r.res.Restored, undone...), append(errs, uerrs...)
	}
	if r.res.Pool != nil {
		r.res.Pool.After, _ = hostchange.ReadInt(r.fs.SysctlPath("vm.nr_hugepages"))
	}
	if len(errs) == 0 && r.jr != nil {
		errs = append(errs, r.jr.Remove())
	}
	r.res.FinishedAt = time.Now().UTC()
	r.res.Elapsed = r.res.FinishedAt.Sub(r.res.StartedAt)
	return errors.Join(errs...)
}
