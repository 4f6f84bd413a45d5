package cli

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/plan"
)

// budgetProfiles are PGTune's workload names, for the peers.
var budgetProfiles = []string{"web", "oltp", "dw", "mixed", "desktop"}

// defineBudget adds the flags of PostgreSQL's memory budget.
func (pf *planFlags) defineBudget(cmd *cobra.Command) {
	f := cmd.Flags()
	f.IntVar(&pf.req.WhatIf.CPUs, "cpus", 0, "what-if: its CPU count (the budget's concurrency and the peers' parallel settings)")
	f.IntVar(&pf.req.Budget.ActiveSessions, "active-sessions", 0, "budget for this many sessions running queries at once (default: measured, or on a what-if 2 x CPUs + 1, else every connection)")
	f.StringVar(&pf.req.Budget.Profile, "profile", "web", "workload the peers (PGTune, timescaledb-tune) are computed for: web, oltp, dw, mixed or desktop")
	f.StringVar(&pf.req.Budget.History, "history", "", "a 'dbmem watch --record' file: the most connections it recorded bound the budget's concurrency")
	f.BoolVar(&pf.req.Budget.Off, "no-budget", false, "plan without PostgreSQL's memory budget (work_mem and its companions)")
}

// budgetRequest checks the budget's flags.
func (pf *planFlags) budgetRequest(cmd *cobra.Command, r *plan.Request) error {
	if !slices.Contains(budgetProfiles, r.Budget.Profile) {
		return usageError{fmt.Errorf("--profile %q: want one of web, oltp, dw, mixed, desktop", r.Budget.Profile)}
	}
	if r.Budget.ActiveSessions < 0 || r.WhatIf.CPUs < 0 {
		return usageError{fmt.Errorf("--active-sessions and --cpus cannot be negative")}
	}
	if r.WhatIf.RAMBytes == 0 && cmd.Flags().Changed("cpus") {
		return usageError{fmt.Errorf("--cpus describes a what-if host: give --ram too (this host's CPUs are read)")}
	}
	return nil
}
