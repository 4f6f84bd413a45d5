package xray

import (
	"fmt"
	"slices"
	"sort"

	"github.com/dbmem/dbmem/internal/postgres"
)

// Target is an instance and the backends of it to X-ray.
type Target struct {
	Instance *postgres.Instance
	PIDs     []int
}

// Select picks what to X-ray: the n client backends with the highest
// private cost over every instance dbmem is connected to (dbmem's own
// connection left out), and
// each of pids, which must be a process of an instance found (an error
// names the PID otherwise). At most MaxBackends in all; capped says how
// many were left out.
func Select(ins []*postgres.Instance, n int, pids []int) (ts []Target, capped int, err error) {
	chosen := map[*postgres.Instance][]int{}
	total := 0
	for _, pid := range pids {
		in := instanceOf(ins, pid)
		if in == nil {
			return nil, 0, fmt.Errorf("--contexts-pid %d: not a process of any PostgreSQL instance found (dbmem report --all lists them)", pid)
		}
		if !slices.Contains(chosen[in], pid) {
			chosen[in] = append(chosen[in], pid)
			total++
		}
	}
	for _, c := range topClients(ins, n) {
		if !slices.Contains(chosen[c.in], c.pid) {
			chosen[c.in] = append(chosen[c.in], c.pid)
			total++
		}
	}
	left := MaxBackends
	for _, in := range ins {
		p := chosen[in]
		if len(p) == 0 {
			continue
		}
		if len(p) > left {
			capped += len(p) - left
			p = p[:left]
		}
		left -= len(p)
		if len(p) > 0 {
			ts = append(ts, Target{Instance: in, PIDs: p})
		}
	}
	return ts, capped, nil
}

func instanceOf(ins []*postgres.Instance, pid int) *postgres.Instance {
	for _, in := range ins {
		if p, ok := in.Process(pid); ok && p.Role != postgres.RolePostmaster {
			return in
		}
	}
	return nil
}

type candidate struct {
	in    *postgres.Instance
	pid   int
	bytes uint64
}

// topClients are the n client backends with the highest private cost,
// among the instances dbmem is connected to (the others cannot be asked).
func topClients(ins []*postgres.Instance, n int) []candidate {
	if n <= 0 {
		return nil
	}
	var all []candidate
	for _, in := range ins {
		if !in.Connected {
			continue
		}
		for _, p := range in.ByRole(postgres.RoleClient) {
			if p.PID == in.SessionPID {
				continue
			}
			if b, _, ok := p.PrivateCost(); ok {
				all = append(all, candidate{in, p.PID, b})
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].bytes > all[j].bytes })
	if len(all) > n {
		all = all[:n]
	}
	return all
}
