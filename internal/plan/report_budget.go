package plan

import (
	"strconv"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// ReportBudgets budgets every PostgreSQL instance of a snapshot as the
// host is now (its pools, its CommitLimit under strict overcommit), at
// the settings each runs with: what `dbmem report` shows. Keyed by
// postmaster PID.
func ReportBudgets(fs linux.FS, s *snapshot.Snapshot, o BudgetOptions) map[int]*budget.Result {
	out := map[int]*budget.Result{}
	if o.Off || s == nil {
		return out
	}
	r := Request{Snapshot: s, Budget: o, FS: fs, anon: &hostAnon{}}
	for _, pg := range s.Postgres {
		in := runningBudget(r, pg, pg.Settings, "postgresql "+pg.Version+" port "+portText(pg.Port))
		in.Host = nowHost(s.Host, pg, in.Host)
		res := budget.Postgres(*in)
		out[pg.PostmasterPID] = &res
	}
	return out
}

// nowHost completes the host facts as they are now.
func nowHost(h linux.Host, pg *postgres.Instance, b budget.Host) budget.Host {
	if v := h.Meminfo.MemTotalBytes; v != nil {
		b.RAMBytes = *v
	}
	for _, p := range h.HugePools {
		if p.Node < 0 {
			b.HugePoolBytes += (p.Total + p.Surplus) * p.PageSizeBytes
		}
	}
	if sh := pg.Shared; sh != nil {
		b.SharedBytes, b.SharedInHugePages = sh.SizeBytes, sh.Hugetlb
	} else if v, ok := pg.Settings.Bytes("shared_buffers"); ok {
		b.SharedBytes = v
	}
	if h.Sysctls["vm.overcommit_memory"] == "2" && h.Meminfo.CommitLimitBytes != nil {
		b.CommitLimitBytes, b.CommitFrom = h.Meminfo.CommitLimitBytes, "now"
	}
	return b
}

func portText(p int) string {
	if p == 0 {
		return "unknown"
	}
	return strconv.Itoa(p)
}
