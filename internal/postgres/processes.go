package postgres

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// readProcesses reads the postmaster and its children and names their roles,
// from pg_stat_activity when connected, else from their titles, then
// measures their private cost as opt.Method asks. Processes that exit
// meanwhile are left out.
func (in *Instance) readProcesses(fs linux.FS, pm int, children []int, opt Options) {
	var denied []int
	for _, pid := range append([]int{pm}, children...) {
		p, gaps, err := linux.ReadProcess(fs, pid, opt.Method)
		if linux.IsGone(err) {
			continue
		}
		if err != nil {
			in.gap(fmt.Sprintf("process %d", pid), err.Error())
			continue
		}
		for _, g := range gaps {
			if strings.HasSuffix(g.What, "/smaps_rollup") && g.Is(linux.GapDenied) {
				denied = append(denied, pid)
				continue
			}
			in.Gaps = append(in.Gaps, g)
		}
		in.Processes = append(in.Processes, Proc{Process: p, Title: in.roleOf(p, pid == pm)})
	}
	if len(denied) > 0 {
		in.gap(fmt.Sprintf("Pss of %d processes", len(denied)),
			"smaps_rollup: permission denied (run as root or as the postgres user); private cost falls back to RssAnon, which over-counts")
	}
	in.measurePrivate(fs, opt.Method)
}

func (in *Instance) roleOf(p linux.Process, isPostmaster bool) Title {
	if isPostmaster {
		return Title{Role: RolePostmaster}
	}
	if a, ok := in.activity[p.PID]; ok && a.BackendType != "" {
		role, detail := RoleFromBackendType(a.BackendType)
		t := Title{Role: role, Detail: detail}
		if role == RoleClient || role == RoleWalSender || role == RoleParallel {
			t.User, t.Database, t.Client, t.State = a.User, a.Database, a.Client, a.State
		}
		return t
	}
	return ParseTitle(p.Title, in.Settings.String("cluster_name"))
}
