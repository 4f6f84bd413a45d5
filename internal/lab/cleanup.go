package lab

import "github.com/dbmem/dbmem/internal/hostchange"

// cleanup stops and removes the cluster, restores the pool and removes the
// journal, then reads the pool as it was left.
func (r *run) cleanup() error {
	err := r.restore(nil)
	if r.res.Pool != nil {
		r.res.Pool.After, _ = hostchange.ReadInt(r.fs.SysctlPath("vm.nr_hugepages"))
	}
	return err
}
