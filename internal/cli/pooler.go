package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/apply"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/pooler/iniapply"
	"github.com/dbmem/dbmem/internal/redact"
)

// poolerFlags are the flags of `dbmem pooler set` and `rollback`.
type poolerFlags struct {
	pid        int
	yes        bool
	journalDir string
	id         string
}

func newPoolerCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pooler",
		Short: "Change a running PgBouncer's pool sizes in its pgbouncer.ini: shown, then written, reloaded and verified",
		Long: `pooler set writes pool sizes into the pgbouncer.ini of a running PgBouncer (or the
file it %includes that sets them) and pooler rollback undoes it. 'dbmem report' shows
the pools (POOLERS) and the server connections they may open to each PostgreSQL.

Without --yes it only shows the diff (passwords in connection strings are replaced by
REDACTED). With --yes it writes the file atomically with a timestamped backup next to
it, journals the run (dbmem rollback sees it too), runs RELOAD over PgBouncer's admin
console and checks with SHOW CONFIG and SHOW DATABASES that PgBouncer holds the new
values; when it does not, the run is rolled back and RELOAD runs again.

Keys: default_pool_size, min_pool_size, reserve_pool_size, max_db_connections and
max_user_connections of [pgbouncer]; DATABASE.pool_size, DATABASE.min_pool_size,
DATABASE.reserve_pool and DATABASE.max_db_connections of a [databases] entry.

Exit codes: 0 done (or dry run), 1 error (a failed run is rolled back), 2 usage,
4 refused (another apply or rollback runs).`,
		Args: noArgs,
	}
	cmd.AddCommand(newPoolerSetCmd(e), newPoolerRollbackCmd(e))
	return cmd
}

func newPoolerSetCmd(e *env) *cobra.Command {
	var f poolerFlags
	cmd := &cobra.Command{
		Use:   "set KEY=N...",
		Short: "Write pool sizes into a running PgBouncer's configuration (dry run without --yes)",
		Example: `  dbmem pooler set shop.max_db_connections=25
  dbmem pooler set --pid 4242 default_pool_size=15 reports.pool_size=5 --yes`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{fmt.Errorf("%s: give at least one KEY=N (e.g. default_pool_size=15)", cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runPoolerSet(cmd.Context(), e, f, args) },
	}
	f.define(cmd)
	return cmd
}

func newPoolerRollbackCmd(e *env) *cobra.Command {
	var f poolerFlags
	cmd := &cobra.Command{
		Use:   "rollback",
		Short: "Restore the pgbouncer.ini of a 'pooler set' run and RELOAD (dry run without --yes)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := pickBouncer(cmd.Context(), e, f.pid)
			if err != nil {
				return err
			}
			o, release, err := f.options(e)
			if err != nil {
				return err
			}
			defer release()
			o.Restorable = iniapply.Restorable(p)
			rp, err := apply.PrepareRollback(o, f.id)
			if err != nil || !f.yes {
				if err == nil {
					err = showPoolerRollback(e, rp)
				}
				return err
			}
			j, err := iniapply.Rollback(cmd.Context(), o, rp.Undoes, p, pooler.Connector{FS: e.fs(), Helper: pooler.NewHelper()})
			return reportPoolerRun(e, p.PID, j, err)
		},
	}
	f.define(cmd)
	cmd.Flags().StringVar(&f.id, "id", "", "the run to undo (default: the newest apply not yet undone)")
	return cmd
}

func (f *poolerFlags) define(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&f.pid, "pid", 0, "the PgBouncer process (default: the only one running)")
	fl.BoolVar(&f.yes, "yes", false, "make the change (default: only show it)")
	fl.StringVar(&f.journalDir, "journal-dir", apply.DefaultJournalDir, "where runs are journaled for rollback")
}

// options locks apply's journal when the run changes something.
func (f poolerFlags) options(e *env) (apply.Options, func(), error) {
	o := apply.Options{FS: e.fs(), JournalDir: f.journalDir}
	if !f.yes {
		return o, func() {}, nil
	}
	o, release, err := apply.Lock(o)
	if err != nil {
		return o, nil, lockError(e, err)
	}
	return o, release, nil
}

func runPoolerSet(ctx context.Context, e *env, f poolerFlags, args []string) error {
	var changes []pooler.Change
	for _, a := range args {
		c, err := pooler.ParseChange(a)
		if err != nil {
			return usageError{err}
		}
		changes = append(changes, c)
	}
	p, err := pickBouncer(ctx, e, f.pid)
	if err != nil {
		return err
	}
	o, release, err := f.options(e)
	if err != nil {
		return err
	}
	defer release()
	plan, err := iniapply.Prepare(ctx, e.fs(), p, changes, o)
	if err != nil {
		return err
	}
	if !f.yes || !plan.Changed() {
		return showPoolerPlan(e, plan)
	}
	j, err := iniapply.Apply(ctx, plan, o, pooler.Connector{FS: e.fs(), Helper: pooler.NewHelper()})
	return reportPoolerRun(e, plan.PID, j, err)
}

// showPoolerPlan prints a dry run: the redacted diff.
func showPoolerPlan(e *env, plan *iniapply.Plan) error {
	if e.json {
		return writeJSON(e.stdout, map[string]any{"schema": "dbmem.pooler-set/v1", "dry_run": true, "plan": plan})
	}
	if !plan.Changed() {
		fmt.Fprintf(e.stdout, "pgbouncer %d already holds these values: nothing to change.\n", plan.PID)
		return nil
	}
	fmt.Fprint(e.stdout, plan.Diff)
	fmt.Fprintf(e.stdout, "\nThen: RELOAD over pgbouncer %d's admin console, and SHOW CONFIG / SHOW DATABASES must show the new values "+
		"(else the run is rolled back).\nDry run: nothing was changed. To make this change, run it again with --yes\n", plan.PID)
	return nil
}

// pickBouncer finds the PgBouncer to change: --pid, or the only one, with
// its console (needed to RELOAD and verify).
func pickBouncer(ctx context.Context, e *env, pid int) (*pooler.Pooler, error) {
	if !e.fs().IsLive() {
		return nil, usageError{errors.New("pooler set and rollback change a running PgBouncer: not with --proc, --root or --from")}
	}
	found, _, err := pooler.Discover(ctx, e.fs(), pooler.Options{})
	if err != nil {
		return nil, err
	}
	var match []*pooler.Pooler
	for _, p := range found {
		if p.Kind == pooler.PgBouncer && (pid == 0 || p.PID == pid) {
			match = append(match, p)
		}
	}
	switch {
	case len(match) == 1:
		return match[0], nil
	case len(match) == 0 && pid != 0:
		return nil, usageError{fmt.Errorf("no PgBouncer runs with pid %d", pid)}
	case len(match) == 0:
		return nil, usageError{errors.New("no PgBouncer runs on this host")}
	}
	msg := "several PgBouncers run here; choose one with --pid:"
	for _, p := range match {
		msg += fmt.Sprintf(" %d (%s)", p.PID, p.ConfigFile)
	}
	return nil, usageError{errors.New(msg)}
}

// reportPoolerRun says what a set or rollback run wrote and how it ended.
func reportPoolerRun(e *env, pid int, j *apply.Journal, err error) error {
	if e.json && j != nil {
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if jerr := writeJSON(e.stdout, map[string]any{"schema": "dbmem.pooler-set/v1", "dry_run": false, "journal": j, "error": msg}); jerr != nil {
			return jerr
		}
	} else if j != nil {
		for _, f := range j.Files {
			fmt.Fprintf(e.stdout, "wrote %s (previous file kept as %s)\n", f.Path, f.Backup)
		}
		switch {
		case err == nil && j.Kind == "apply":
			fmt.Fprintf(e.stdout, "RELOAD: pgbouncer %d reread its configuration; SHOW CONFIG and SHOW DATABASES show the new values\n", pid)
		case err == nil:
			fmt.Fprintf(e.stdout, "RELOAD: pgbouncer %d reread its configuration\n", pid)
		}
		if err == nil {
			fmt.Fprintf(e.stdout, "journal: %s\n", j.Path)
			if j.Kind == "apply" {
				fmt.Fprintf(e.stdout, "undo with: dbmem pooler rollback --id %s --yes\n", j.ID)
			}
		}
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "dbmem: %v\n", err)
		return exitError{ExitError}
	}
	return nil
}

// showPoolerRollback prints what a rollback would restore, its diff
// redacted as set's is.
func showPoolerRollback(e *env, rp *apply.Plan) error {
	if e.json {
		return writeJSON(e.stdout, map[string]any{"schema": "dbmem.pooler-rollback/v1", "dry_run": true, "undoes": rp.Undoes, "files": len(rp.Files)})
	}
	for _, f := range rp.Files {
		diff := apply.UnifiedDiff(f.Old, f.Content, f.Target+"\t(current)", f.Target+"\t(restored)")
		red, _ := redact.Secrets(diff)
		fmt.Fprint(e.stdout, inert.Output(red, false))
	}
	fmt.Fprintf(e.stdout, "\nDry run: nothing was changed. To restore the files of run %s and RELOAD, run it again with --yes\n", rp.Undoes)
	return nil
}
