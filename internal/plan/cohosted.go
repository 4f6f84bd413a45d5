package plan

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
)

// coHosted is the private memory of everything but the instance: in its
// cgroup when that has a limit (the cgroup's anon less the instance's
// private memory), else on the host (RssAnon + VmSwap of every other
// process: RssAnon counts a page shared after fork in each process, an
// over-count on the safe side). nil when it cannot be read.
func coHosted(fs linux.FS, r Request, pg *postgres.Instance) (*uint64, string) {
	if cg := pg.Cgroup; cg != nil && cg.LimitBytes != nil && cg.AnonBytes != nil {
		sum := postgres.Summarize(pg)
		if sum.PrivateBytes != nil {
			v := *cg.AnonBytes - min(*cg.AnonBytes, *sum.PrivateBytes)
			return &v, fmt.Sprintf("anon %s of cgroup %s less the instance's %s private", units.Bytes(*cg.AnonBytes), cg.Path, units.Bytes(*sum.PrivateBytes))
		}
	}
	mine := map[int]bool{}
	for _, p := range pg.Processes {
		mine[p.PID] = true
	}
	mine[pg.SessionPID] = true
	return othersPrivate(fs, mine)
}

// othersPrivate is RssAnon + VmSwap of every process but mine; nil when
// the process list cannot be read.
func othersPrivate(fs linux.FS, mine map[int]bool) (*uint64, string) {
	pids, err := linux.ListPIDs(fs)
	if err != nil {
		return nil, ""
	}
	var total uint64
	n := 0
	for _, pid := range pids {
		if mine[pid] {
			continue
		}
		st, err := linux.ReadStatus(fs, pid)
		if err != nil || st.RssAnonBytes == nil {
			continue // gone, or a kernel thread
		}
		total += *st.RssAnonBytes
		if st.VmSwapBytes != nil {
			total += *st.VmSwapBytes
		}
		n++
	}
	return &total, fmt.Sprintf("RssAnon + VmSwap of %d other processes", n)
}
