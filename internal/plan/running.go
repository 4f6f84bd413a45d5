package plan

import (
	"context"
	"fmt"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
)

// running plans this host for its running instances.
func running(ctx context.Context, a *asker, r Request) (advise.PlanInput, error) {
	s := r.Snapshot
	in := advise.PlanInput{Source: fmt.Sprintf("host %s, snapshot of %s", s.Host.Hostname, s.TakenAt.Format("2006-01-02 15:04:05 MST"))}
	var err error
	if in.Host, in.Notes, err = hostFacts(s, r.Given); err != nil {
		return in, err
	}
	var chosen []*postgres.Instance
	for _, pg := range s.Postgres {
		if r.Port == 0 && r.MySQLPort == 0 || r.Port != 0 && pg.Port == r.Port {
			chosen = append(chosen, pg)
		}
	}
	if r.Port != 0 && len(chosen) == 0 {
		return in, usage("no running PostgreSQL instance on port %d", r.Port)
	}
	if r.Port != 0 && len(s.Postgres)+len(s.MySQL) > 1 {
		in.Notes = append(in.Notes, oneOfMany(fmt.Sprintf("--pg-port %d", r.Port), len(s.Postgres)+len(s.MySQL)-1)) // unit.go
	}
	if r.Port == 0 && r.MySQLPort != 0 && len(s.Postgres) > 0 {
		in.Notes = append(in.Notes, fmt.Sprintf("PostgreSQL instances not planned: --mysql-port %d chose one MySQL/MariaDB server; their huge pages in use count as others'", r.MySQLPort))
	}
	if len(r.Changes) > 0 && len(chosen) > 1 {
		return in, usage("%d instances run here: choose the one the changes are for with --port", len(chosen))
	}
	size := r.pageSize(in.Host.DefaultHugePageBytes)
	for _, pg := range chosen {
		pi, notes, err := runningInstance(ctx, a, r, pg, size)
		if err != nil {
			return in, err
		}
		in.Notes = append(in.Notes, notes...)
		in.Instances = append(in.Instances, pi)
	}
	if err := addMySQL(&in, r, s, size); err != nil {
		return in, err
	}
	in.Notes = append(in.Notes, unknownOwners(s)...)
	return in, nil
}

func runningInstance(ctx context.Context, a *asker, r Request, pg *postgres.Instance, size uint64) (advise.PlannedInstance, []string, error) {
	set := overlay(pg.Settings, r.Changes, postgres.FromCommandLine)
	pi := advise.PlannedInstance{
		Engine: advise.Engine{Name: finding.EnginePostgres, Major: pg.Major}, Subject: advise.PostgresSubject(pg),
		Changes: r.Changes, Current: currentOf(pg.Settings, r.Changes), GID: -1, DataDir: pg.DataDir,
	}
	pi.Unit, pi.NoUnit = r.unitOr(pg.Unit, pg.NoUnit) // postgres.RunningUnit's, as check and apply name it
	pi.Ctl = postgres.Ctl(pg.Settings.String("config_file"), pg.DataDir)
	if cg, ok := r.Snapshot.CgroupOf(pg.PostmasterPID); ok && cg.Container != nil && !sameContainer(r.Snapshot.Environment, cg.Container) {
		pi.Container = cg.Container.String()
	}
	view := *pg
	view.Settings = set
	pi.Work = advise.PostgresWorkload(&view, r.NodesPerQuery)
	now := advise.PostgresWorkload(pg, r.NodesPerQuery)
	pi.CurrentWork = &now
	pi.Budget = runningBudget(r, pg, set, pi.Subject)
	if sh := pg.Shared; sh != nil {
		if sh.Hugetlb && sh.PageSizeBytes == size {
			pi.HeldPages = sh.SizeBytes / size
		}
		if !sh.Hugetlb {
			pi.SharedIn4KBytes = sh.SizeBytes
		}
	}
	if v := r.Trust.Vouch(pg.Owners, "postgres"); v.Known && !v.Trusted {
		pi.Untrusted = v.Why // nothing is run for it: estimated, and left out of the host-wide plan
		pi.Need = estimateNeed(set, size)
		return pi, nil, nil
	}
	var notes []string
	var err error
	hostDefault, _ := r.Snapshot.Host.DefaultPageSize() // 0: unknown, shownNeed then needs huge_page_size
	pi.Need, notes, err = runningNeed(ctx, a, pg, set, size, hostDefault, len(r.Changes) > 0)
	return pi, notes, err
}

// runningNeed: SHOW or the mapping for an unchanged server, else ask a
// throwaway cluster, else estimate.
func runningNeed(ctx context.Context, a *asker, pg *postgres.Instance, set postgres.Settings, size, hostDefault uint64, changed bool) (advise.HugePageNeed, []string, error) {
	if !changed {
		if n, ok := shownNeed(pg, size, hostDefault); ok {
			return n, nil, nil
		}
		if sh := pg.Shared; sh != nil {
			return advise.HugePageNeed{PageSizeBytes: size, Pages: advise.HugePagesFor(sh.SizeBytes, size), SharedBytes: sh.SizeBytes, Exact: true,
				Source: fmt.Sprintf("postmaster's shared mapping %d B / %s", sh.SizeBytes, units.Bytes(size))}, nil, nil
		}
	}
	n, err := a.askPlanned(ctx, pg.Major, size, sizing(set))
	if err != nil {
		n, notes := estimateNeed(set, size), []string{"could not ask PostgreSQL (" + firstLine(err) + "): estimated"}
		if libs := preloaded(set); libs != "" {
			notes = append(notes, librariesNote(advise.PostgresSubject(pg), libs))
		}
		return n, notes, nil
	}
	n, notes := a.withLibraries(ctx, pg, set, size, n)
	return n, notes, nil
}

// shownNeed is SHOW shared_memory_size_in_huge_pages when it was computed
// for the planned page size (huge_page_size, else the host's default).
func shownNeed(pg *postgres.Instance, size, hostDefault uint64) (advise.HugePageNeed, bool) {
	n, ok := pg.Settings.Int("shared_memory_size_in_huge_pages")
	if !ok || n <= 0 {
		return advise.HugePageNeed{}, false
	}
	shownFor, _ := pg.Settings.Bytes("huge_page_size")
	if shownFor == 0 {
		shownFor = hostDefault
	}
	if shownFor != size {
		return advise.HugePageNeed{}, false
	}
	b, _ := pg.Settings.Bytes("shared_memory_size")
	return advise.HugePageNeed{PageSizeBytes: size, Pages: uint64(n), SharedBytes: b, Exact: true,
		Source: "SHOW shared_memory_size_in_huge_pages"}, true
}

// currentOf quotes the current values of the settings a plan may touch.
func currentOf(s postgres.Settings, changes map[string]string) map[string]string {
	out := map[string]string{}
	for _, n := range []string{"huge_pages", "huge_page_size", "shared_memory_type"} {
		out[n] = s.String(n)
	}
	for n := range changes {
		out[n] = s.String(n)
	}
	return out
}

// sameContainer reports whether dbmem runs in container c itself.
func sameContainer(e linux.Environment, c *linux.Container) bool {
	return e.Container != nil && e.Container.ID == c.ID && e.Container.PodUID == c.PodUID
}
