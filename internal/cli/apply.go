package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/apply"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/render"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// applyFlags are `dbmem apply`'s flags.
type applyFlags struct {
	sets                  []string
	planFile              string
	yes, dryRun           bool
	postgres, mysql, boot bool
	alterSystem           bool
	writeRoot, journalDir string
	unit, confDir         string
}

func newApplyCmd(e *env) *cobra.Command {
	var f applyFlags
	cmd := &cobra.Command{
		Use:   "apply",
		Short: "Show, and with --yes make, the changes of a plan: live kernel values and files, journaled for rollback",
		Long: `apply takes settings (this host's plan, as 'dbmem plan' computes it; or --plan
FILE, the JSON of 'dbmem plan --json'; or --set name=value) and shows what would change:
each live kernel value (current -> new) and a unified diff of each file
(/etc/sysctl.d/60-dbmem.conf, systemd drop-ins, the PostgreSQL conf.d file, GRUB).
It changes nothing without --yes.

With --yes it sets the values live (huge page pools first: they lower CommitLimit),
reads each back (a pool the kernel could only partly allocate is reported and rolled
back), writes the files atomically with a timestamped backup next to each, and
journals everything in --journal-dir so that 'dbmem rollback' restores the previous
state. It refuses, naming the numbers and the fix, a change that would make the host
worse: strict overcommit whose CommitLimit falls below Committed_AS + 10% of RAM, a
huge page pool that leaves less than 10% of RAM (at least 1 GiB) or grows beyond the
memory available now, settings for a database that does not run here.

PostgreSQL settings are written only with --postgres (the instance's conf.d; then the
server is reloaded and every value read back, a setting that needs a restart is said) or
set with --alter-system (ALTER SYSTEM); per-role settings with either (ALTER ROLE), read back
from pg_db_role_setting; 'dbmem rollback --postgres' undoes the SQL. MySQL settings are
written only with --mysql (a [mysqld] drop-in; the dynamic ones, such as max_connections, are
also set live with SET GLOBAL and read back with SHOW GLOBAL VARIABLES, the others need a
restart; 'dbmem rollback --mysql' undoes the live part). dbmem never restarts a database. The kernel command line is
written (to /etc/default/grub.d) only with --boot.

Exit codes: 0 done (or dry run), 1 error (a failed run is rolled back), 2 usage,
4 refused (nothing changed).`,
		Example: `  dbmem apply --dry-run
  dbmem apply --yes
  dbmem apply --set vm.swappiness=10 --set vm.nr_hugepages=600
  dbmem plan --json > plan.json && dbmem apply --plan plan.json --postgres --yes
  dbmem apply --set vm.swappiness=10 --write-root /tmp/review`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runApply(cmd.Context(), e, f) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.sets, "set", nil, "apply this setting instead of the plan: [target:]name=value, e.g. vm.swappiness=10, transparent_hugepage/enabled=never, postgresql:huge_pages=on, systemd:LimitMEMLOCK=infinity (repeatable)")
	fl.StringVar(&f.planFile, "plan", "", "apply the settings in this JSON file ('dbmem plan --json' output or an array of settings; - for stdin)")
	fl.BoolVar(&f.yes, "yes", false, "make the changes (default: only show them)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "only show the changes, make none (the default without --yes, said explicitly)")
	fl.BoolVar(&f.postgres, "postgres", false, "also write PostgreSQL settings to the instance's conf.d, reload it and read each value back (settings that need a restart are said: dbmem never restarts); per-role settings go over SQL (ALTER ROLE)")
	fl.BoolVar(&f.alterSystem, "alter-system", false, "set PostgreSQL's settings with ALTER SYSTEM instead of the conf.d file (and per-role ones with ALTER ROLE), reload, read each back; journaled for 'dbmem rollback --postgres'")
	fl.BoolVar(&f.mysql, "mysql", false, "also write MySQL/MariaDB settings to a [mysqld] drop-in, and set the dynamic ones live (SET GLOBAL, read back with SHOW GLOBAL VARIABLES); the others need a restart")
	fl.BoolVar(&f.boot, "boot", false, "also write the kernel command line to /etc/default/grub.d (needs update-grub and a reboot)")
	fl.StringVar(&f.writeRoot, "write-root", "/", "with --yes, write the files under this directory instead of / (DIR/etc/sysctl.d/60-dbmem.conf, ...) to review them before they go live; live kernel values are still set, on the host --proc and --sys name")
	fl.StringVar(&f.journalDir, "journal-dir", apply.DefaultJournalDir, "where runs are journaled for rollback")
	fl.StringVar(&f.unit, "unit", "", "systemd unit of the database (default: found from the PostgreSQL instance)")
	fl.StringVar(&f.confDir, "conf-dir", "", "PostgreSQL include_dir to write to (default: from postgresql.conf)")
	return cmd
}

func runApply(ctx context.Context, e *env, f applyFlags) error {
	if f.yes && f.dryRun {
		return usageError{fmt.Errorf("--dry-run and --yes contradict each other: --dry-run only shows the changes, --yes makes them")}
	}
	settings, instances, err := f.settings(ctx, e)
	if err != nil {
		return err
	}
	settings, sql := f.splitSQL(settings)
	o, err := f.options(e, settings, instances)
	if err != nil {
		return err
	}
	if f.yes {
		var release func()
		if o, release, err = apply.Lock(o); err != nil {
			return lockError(e, err)
		}
		defer release()
	}
	p, err := apply.Prepare(settings, o)
	if err != nil {
		return err
	}
	pg, err := f.preparePG(ctx, e, sql, instances)
	if err != nil {
		return err
	}
	my, err := f.prepareMySQL(ctx, e, settings)
	if err != nil {
		return err
	}
	if !f.yes || !p.Changes() && len(p.Refusals) == 0 && !pg.changes() && my == nil {
		defer my.close()
		err := showPlan(e, p, "--yes", pg)
		if !e.json {
			writeMySQL(e.stdout, my)
		}
		return err
	}
	var j *apply.Journal
	if p.Changes() || len(p.Refusals) > 0 || pg == nil {
		j, err = apply.Run(p, o)
	}
	if err == nil && pg != nil {
		err = pg.run(ctx, o, j)
	}
	if err == nil && my != nil {
		err = my.run(ctx, f.journalDir)
	}
	rerr := reportRun(e, p, j, err, pg)
	if !e.json {
		writeMySQL(e.stdout, my)
	}
	return rerr
}

// settings returns what to apply: --set, --plan, or this host's plan; and
// the PostgreSQL instances running here.
func (f applyFlags) settings(ctx context.Context, e *env) ([]finding.Setting, []*postgres.Instance, error) {
	if len(f.sets) > 0 && f.planFile != "" {
		return nil, nil, usageError{errors.New("--set and --plan do not go together")}
	}
	if len(f.sets) > 0 || f.planFile != "" {
		s, err := f.given(e)
		if err != nil {
			return nil, nil, err
		}
		ins, _, err := postgres.Discover(ctx, e.fs(), postgres.Options{})
		return s, ins, err
	}
	e.conn.Work = true // the plan's budget reads spills and roles' settings
	so := e.snapshotOptions()
	so.Guard = true // the plan applied holds the OOM guard's settings
	snap, err := snapshot.Take(ctx, so)
	if err != nil {
		return nil, nil, err
	}
	port, err := e.pgPort()
	if err != nil {
		return nil, nil, err
	}
	res, err := plan.Run(ctx, plan.Request{Snapshot: snap, Port: port, Unit: f.unit,
		NodesPerQuery: advise.DefaultNodesPerQuery, FS: e.fs(), Budget: plan.BudgetOptions{Profile: "web"}, Trust: e.trust()})
	if errors.Is(err, plan.ErrUsage) {
		return nil, nil, usageError{err}
	}
	return res.Settings, snap.Postgres, err
}

// given reads --set or --plan.
func (f applyFlags) given(e *env) ([]finding.Setting, error) {
	if f.planFile == "" {
		var out []finding.Setting
		for _, a := range f.sets {
			s, err := apply.ParseSet(a)
			if err != nil {
				return nil, usageError{err}
			}
			out = append(out, s)
		}
		return out, nil
	}
	var r io.Reader = e.stdin
	if f.planFile != "-" {
		file, err := os.Open(f.planFile)
		if err != nil {
			return nil, err
		}
		defer file.Close()
		r = file
	}
	s, err := apply.ReadPlan(r)
	if err != nil {
		return nil, fmt.Errorf("--plan %s: %w", f.planFile, err)
	}
	return s, nil
}

// options finds where PostgreSQL's settings and the units go.
func (f applyFlags) options(e *env, settings []finding.Setting, ins []*postgres.Instance) (apply.Options, error) {
	o := apply.Options{FS: e.fs(), FilesRoot: f.writeRoot, JournalDir: f.journalDir,
		Postgres: f.postgres, MySQL: f.mysql, Boot: f.boot,
		Render: render.Options{Generated: "dbmem " + version() + " apply", PostgresConfDir: f.confDir}}
	if f.unit != "" {
		o.Render.Units = []string{f.unit}
	}
	port, err := e.pgPort()
	if err != nil {
		return o, err
	}
	in, err := pickInstance(ins, port, needsInstance(settings))
	if err != nil || in == nil {
		return o, err
	}
	dir, derr := apply.PostgresConfDir(e.fs(), in)
	o.Render.PostgresConfDir = cmp.Or(o.Render.PostgresConfDir, dir)
	if f.unit == "" && in.Unit != "" { // the unit check and plan name (postgres.RunningUnit); none: no drop-in
		o.Render.Units = []string{in.Unit}
	}
	if derr != nil && f.postgres && f.confDir == "" && len(render.Of(settings, finding.TargetPostgres)) > 0 {
		return o, fmt.Errorf("where to write PostgreSQL settings: %w (or give --conf-dir)", derr)
	}
	return o, nil
}

// needsInstance reports whether settings name a PostgreSQL instance's
// files or unit.
func needsInstance(settings []finding.Setting) bool {
	for _, s := range settings {
		if s.Target == finding.TargetPostgres || s.Target == finding.TargetSysfs || s.Target == finding.TargetSystemd && s.Unit == "" {
			return true
		}
	}
	return false
}

// pickInstance chooses the instance on --pg-port, or the only one.
func pickInstance(ins []*postgres.Instance, port int, needed bool) (*postgres.Instance, error) {
	var match []*postgres.Instance
	for _, in := range ins {
		if port == 0 || in.Port == port {
			match = append(match, in)
		}
	}
	switch {
	case len(match) == 1:
		return match[0], nil
	case len(match) == 0 || !needed:
		return nil, nil
	}
	msg := "several PostgreSQL instances run here; choose one with --pg-port:"
	for _, in := range match {
		msg += fmt.Sprintf(" %d (%s)", in.Port, in.DataDir)
	}
	return nil, usageError{errors.New(msg)}
}

// showPlan prints a dry run; refusals exit 4.
func showPlan(e *env, p *apply.Plan, how string, pg *pgSQL) error {
	if e.json {
		doc := map[string]any{"schema": "dbmem.apply/v1", "dry_run": true, "plan": p}
		if pg != nil {
			doc["postgres"] = pgDoc(pg)
		}
		if err := writeJSON(e.stdout, doc); err != nil {
			return err
		}
	} else {
		apply.WritePlan(e.stdout, p)
		writePG(e.stdout, pg)
		switch {
		case len(p.Refusals) > 0:
		case p.Changes() || pg.changes():
			fmt.Fprintf(e.stdout, "\nDry run: nothing was changed. To make these changes, run it again with %s\n", how)
		default:
			fmt.Fprintln(e.stdout, "\nNothing to change.")
		}
	}
	if len(p.Refusals) > 0 {
		return exitError{ExitRefused}
	}
	return nil
}

// reportRun prints what a run did; a refusal exits 4, a failure 1.
func reportRun(e *env, p *apply.Plan, j *apply.Journal, err error, pg *pgSQL) error {
	var re *apply.RefusedError
	if errors.As(err, &re) {
		return showPlan(e, p, "", pg)
	}
	if j == nil && pg != nil { // nothing but SQL
		return reportSQL(e, pg, err)
	}
	if j != nil {
		if e.json {
			doc := map[string]any{"schema": "dbmem.apply/v1", "dry_run": false, "plan": p, "journal": j}
			if pg != nil {
				doc["postgres"] = pgDoc(pg)
			}
			if jerr := writeJSON(e.stdout, doc); jerr != nil {
				return jerr
			}
		} else {
			apply.WriteJournal(e.stdout, j)
			writePG(e.stdout, pg)
		}
		if err != nil {
			status, msg := j.Status, j.Error
			if pg != nil && pg.err != nil {
				status, msg = "postgresql", err.Error()
			}
			fmt.Fprintf(e.stderr, "dbmem: %s: %s\n", status, msg)
			return exitError{ExitError}
		}
	}
	return err
}

// lockError: another apply or rollback runs; nothing changed, exit 4.
func lockError(e *env, err error) error {
	var be *apply.BusyError
	if errors.As(err, &be) {
		fmt.Fprintf(e.stderr, "dbmem: %v\n", err)
		return exitError{ExitRefused}
	}
	return err
}
