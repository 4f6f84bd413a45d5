package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/audit"
	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// htmlFlagHelp is --html's help text for report and check.
const htmlFlagHelp = "also write the HTML audit to this file: one self-contained page (charts, findings by bytes at stake, plan, budget) that prints on A4"

// writeAudit writes the HTML audit to path through hostchange.WriteOutput
// (no final symbolic link, never another user's file), with the plan of
// the running instances.
func writeAudit(ctx context.Context, e *env, path string, in audit.Input) error {
	in.Plan, in.PlanNote = auditPlan(ctx, e, in.Snapshot)
	in.Written = time.Now()
	err := hostchange.WriteOutput(path, 0o644, func(w io.Writer) error { return audit.Write(w, in) })
	if err != nil {
		return fmt.Errorf("--html %s: %w", path, err)
	}
	fmt.Fprintf(e.stderr, "HTML audit: %s\n", path)
	return nil
}

// auditPlan is `dbmem plan` for the running instances, as measured: it
// asks nothing new of PostgreSQL (SHOW or the shared mapping gives each
// need), so it is left out, with the reason, when a segment was not read.
func auditPlan(ctx context.Context, e *env, s *snapshot.Snapshot) (*advise.PlanResult, string) {
	for _, pg := range s.Postgres {
		if pg.Shared == nil {
			return nil, fmt.Sprintf("Not computed: the shared memory of %s was not read (run as root or as its owner), "+
				"and asking PostgreSQL would take a throwaway cluster; `dbmem plan` computes it.", advise.PostgresSubject(pg))
		}
	}
	in, err := plan.Build(ctx, plan.Request{Snapshot: s, FS: e.fs(), Trust: e.trust(), Budget: plan.BudgetOptions{Off: true}})
	if err != nil {
		return nil, "Not computed: " + err.Error()
	}
	r := plan.Result(in, s)
	return &r, ""
}
