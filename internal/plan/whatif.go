package plan

import (
	"context"
	"fmt"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
)

// whatIf plans a host described by flags: one PostgreSQL instance, one
// MySQL/MariaDB server, or both.
func whatIf(ctx context.Context, a *asker, r Request) (advise.PlanInput, error) {
	h, err := whatIfHost(r.WhatIf)
	if err != nil {
		return advise.PlanInput{}, err
	}
	in := advise.PlanInput{Source: fmt.Sprintf("what-if host: %s RAM, %s swap, %d NUMA node(s)",
		units.Bytes(h.RAMBytes), units.Bytes(h.SwapBytes), h.NUMANodes), Host: h}
	size := r.pageSize(h.DefaultHugePageBytes)
	if r.postgres() {
		pi, notes := whatIfPostgres(ctx, a, r, size)
		in.Notes = append(in.Notes, notes...)
		in.Instances = append(in.Instances, pi)
	}
	if w := r.WhatIf.MySQL; w != nil {
		pi := whatIfMySQL(*w, r.MySQLChanges, size)
		if r.Budget.Off {
			pi.MySQLBudget = nil
		}
		in.Instances = append(in.Instances, pi)
	}
	return in, nil
}

// whatIfPostgres is one PostgreSQL instance with the default configuration
// plus the changes.
func whatIfPostgres(ctx context.Context, a *asker, r Request, size uint64) (advise.PlannedInstance, []string) {
	major := r.WhatIf.PGMajor
	if major == 0 {
		if bin := a.binFor(0); bin != "" {
			major, _ = pgcluster.MajorVersion(bin)
		}
	}
	set := overlay(postgres.Defaults(major), r.Changes, postgres.FromCommandLine)
	unit := r.Unit
	if unit == "" {
		unit = "postgresql.service"
	}
	pi := advise.PlannedInstance{
		Engine:  advise.Engine{Name: finding.EnginePostgres, Major: major},
		Subject: fmt.Sprintf("postgresql %d (what-if)", major), Unit: unit, Changes: r.Changes,
		Current: map[string]string{}, GID: -1,
		Work:   advise.PostgresWorkload(&postgres.Instance{Major: major, Settings: set}, r.NodesPerQuery),
		Budget: whatIfBudget(r, major, set),
	}
	var notes []string
	var err error
	pi.Need, err = a.askPlanned(ctx, major, size, sizing(set))
	if err != nil {
		pi.Need = estimateNeed(set, size)
		notes = append(notes, "could not ask PostgreSQL ("+firstLine(err)+"): estimated from settings")
	}
	if libs := preloaded(set); libs != "" {
		notes = append(notes, librariesNote(pi.Subject, libs))
	}
	return pi, notes
}
