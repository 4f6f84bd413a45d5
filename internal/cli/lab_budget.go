package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/lab"
	"github.com/dbmem/dbmem/internal/lab/htmlreport"
)

// labBudgetFlags are `dbmem lab budget`'s flags as typed.
type labBudgetFlags struct {
	labCommon
	o     lab.BudgetOptions
	limit string
}

func newLabBudgetCmd(e *env) *cobra.Command {
	var f labBudgetFlags
	cmd := &cobra.Command{
		Use:   "budget",
		Short: "Prove the database budget: a mixed workload under PGTune's settings, dbmem's budget and a small work_mem",
		Long: `lab budget proves dbmem plan's memory budget against real PostgreSQL on this host.
A throwaway cluster runs in a memory cgroup the lab creates (the small host, --limit, 2 GiB by
default). The workload is mixed: role "oltp" runs pgbench's select-only script with many clients,
role "report" runs a few concurrent sessions of sorts, hash joins and hash aggregates over a table
much larger than a small work_mem.

It runs three times, restarting the server between runs (shared_buffers is PGTune's RAM / 4 in
every run):
  uniform-small  work_mem 4MB for every role: the temp-bytes baseline. dbmem measures the cluster
                 during this run exactly as 'dbmem plan' does (snapshot, Measure, the budget).
  dbmem          the budget's settings (ALTER SYSTEM) and its per-role work_mem (ALTER ROLE).
  pgtune         PGTune's settings for the same host (its RAM, CPUs, max_connections, profile mixed).
Each run reports the peak private memory (Pss_Anon + VmPTE of the cluster's processes, sampled
every 250 ms), temp bytes (pg_stat_database), OOM kills (the cgroup's counter), "out of memory"
errors (the server log) and the queries completed with their times. PGTune's outcome is reported
as measured. Four checks are stated as PASS or FAIL: the dbmem run has no OOM kill, its peak is
within its budget, it writes fewer temp bytes than uniform-small, and the whole workload ran (no
connection refused, no query failed); the exit status is 3 when one fails.

The cluster and the cgroup are journaled before they are made (` + lab.DefaultJournalPath + `)
and removed on every exit; a killed run is undone by the next 'dbmem lab' or 'dbmem lab --restore'.
Needs root. --quick takes under 5 minutes on 2 cores.`,
		Example: `  dbmem lab budget --quick
  dbmem lab budget --html budget.html --json > budget.json
  dbmem lab budget --from budget.json --html budget.html`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd, e) },
	}
	f.define(cmd)
	return cmd
}

func (f *labBudgetFlags) define(cmd *cobra.Command) {
	fl := cmd.Flags()
	f.labCommon.define(fl, &f.o.Common, "directory for the throwaway cluster (default: $TMPDIR or /tmp)", "small and fast (under 5 minutes on 2 cores): for CI")
	fl.StringVar(&f.limit, "limit", "", "memory cgroup limit: the small host's memory (default 2GB)")
	fl.IntVar(&f.o.OLTPClients, "clients", 0, "pgbench clients of the OLTP role (default 30; 16 with --quick)")
	fl.IntVar(&f.o.Reporters, "reporters", 0, "concurrent sessions of the reporting role (default 3)")
	fl.IntVar(&f.o.Rounds, "rounds", 0, "times each reporting session runs every query (default 3; 1 with --quick)")
	fl.DurationVar(&f.o.Duration, "duration", 0, "the OLTP load's least time in each run; it runs as long as the reports (default 45s; 15s with --quick)")
	fl.Int64Var(&f.o.FactRows, "rows", 0, "rows of the reporting role's fact table (default 2000000; 600000 with --quick)")
}

func (f *labBudgetFlags) run(cmd *cobra.Command, e *env) error {
	k := labKind[lab.BudgetResult]{name: "dbmem lab budget", schema: lab.BudgetSchema, html: htmlreport.WriteBudget, text: lab.BudgetText,
		empty:  func(r *lab.BudgetResult) bool { return len(r.Configs) == 0 && len(r.Restored) == 0 },
		loaded: recheckBudget}
	res, err := runLab(cmd, e, &f.labCommon, k, f.start)
	if err == nil && res != nil && !res.Passed() {
		fmt.Fprintln(e.stderr, "dbmem lab budget: a check failed (see the checks)")
		return exitError{ExitFindings}
	}
	return err
}

// start runs the experiment.
func (f *labBudgetFlags) start(ctx context.Context) (*lab.BudgetResult, error) {
	var err error
	if f.o.LimitBytes, err = sizeFlag("limit", f.limit); err != nil {
		return nil, err
	}
	if _, err := lab.ResolveBudget(f.o); err != nil {
		return nil, usageError{err}
	}
	return lab.RunBudget(ctx, f.o)
}

// recheckBudget computes a saved result's checks again (pure: this
// dbmem's checks on what was measured).
func recheckBudget(r *lab.BudgetResult) {
	if len(r.Configs) > 0 {
		r.Checks = lab.BudgetChecks(r)
	}
}
