package plan

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
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
	mine := map[int]bool{pg.SessionPID: true}
	for _, p := range pg.Processes {
		mine[p.PID] = true
	}
	anon := r.anon
	if anon == nil {
		anon = &hostAnon{}
	}
	return anon.others(fs, r.Snapshot, mine)
}

// othersPrivate is RssAnon + VmSwap of every process but mine, read now;
// nil when the process list cannot be read.
func othersPrivate(fs linux.FS, mine map[int]bool) (*uint64, string) {
	return (&hostAnon{}).others(fs, nil, mine)
}

// others sums the processes not in mine.
func (h *hostAnon) others(fs linux.FS, s *snapshot.Snapshot, mine map[int]bool) (*uint64, string) {
	procs, ok := h.read(fs, s)
	if !ok {
		return nil, ""
	}
	var total uint64
	n := 0
	for pid, b := range procs {
		if !mine[pid] {
			total += b
			n++
		}
	}
	return &total, fmt.Sprintf("RssAnon + VmSwap of %d other processes", n)
}

// hostAnon is RssAnon + VmSwap of every process with memory of its own
// (kernel threads have none), read once for every instance of a report:
// the status of each process on the host, or for a database's processes
// the status the snapshot read moments before.
type hostAnon struct {
	done  bool
	ok    bool
	bytes map[int]uint64
}

func (h *hostAnon) read(fs linux.FS, s *snapshot.Snapshot) (map[int]uint64, bool) {
	if h.done {
		return h.bytes, h.ok
	}
	h.done = true
	pids, err := linux.ListPIDs(fs)
	if err != nil {
		return nil, false
	}
	known := map[int]linux.Status{}
	if s != nil {
		for _, in := range s.Postgres {
			for _, p := range in.Processes {
				known[p.PID] = p.Status
			}
		}
	}
	h.ok, h.bytes = true, make(map[int]uint64, len(pids))
	for _, pid := range pids {
		st, seen := known[pid]
		if !seen {
			if st, err = linux.ReadStatus(fs, pid); err != nil {
				continue // gone
			}
		}
		if st.RssAnonBytes == nil {
			continue // a kernel thread
		}
		h.bytes[pid] = *st.RssAnonBytes
		if st.VmSwapBytes != nil {
			h.bytes[pid] += *st.VmSwapBytes
		}
	}
	return h.bytes, true
}
