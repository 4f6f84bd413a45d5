package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/apply"
	"github.com/dbmem/dbmem/internal/myapply"
	"github.com/dbmem/dbmem/internal/pgapply"
)

func newRollbackCmd(e *env) *cobra.Command {
	var id, journalDir string
	var yes, list, pg, my bool
	cmd := &cobra.Command{
		Use:   "rollback",
		Short: "Undo a 'dbmem apply' run from its journal: old kernel values and files, exactly",
		Long: `rollback reads the journal of an apply run (the newest one not yet undone, or
--id) and shows how it would restore the previous state: each live value back to the
value it had, each file back from its backup (same bytes, mode and owner), each file
the run created removed. With --yes it does so, reads every value and file back, and
journals the rollback itself (so it can be rolled back too). Repeated rollbacks walk
back through the runs; a run cannot be undone while a later run that changed the same
values stands.

Exit codes: 0 done (or dry run), 1 error, 2 usage, 4 refused (nothing changed).`,
		Example: `  dbmem rollback --list
  dbmem rollback
  dbmem rollback --yes
  dbmem rollback --id 20250301T120000.000Z --yes`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o := apply.Options{FS: e.fs(), JournalDir: journalDir}
			if list {
				return listRuns(e, journalDir)
			}
			if pg {
				return rollbackLocked(cmd.Context(), e, o, id, yes)
			}
			if my {
				if yes {
					_, release, err := apply.Lock(o)
					if err != nil {
						return lockError(e, err)
					}
					defer release()
				}
				return rollbackMySQL(cmd.Context(), e, journalDir, yes)
			}
			if yes {
				var release func()
				var err error
				if o, release, err = apply.Lock(o); err != nil {
					return lockError(e, err)
				}
				defer release()
			}
			p, err := apply.PrepareRollback(o, id)
			if err != nil {
				return err
			}
			if !yes {
				return showPlan(e, p, "--yes (or: dbmem rollback --id "+p.Undoes+" --yes)", nil)
			}
			j, err := apply.Run(p, o)
			if err == nil {
				reloadRestored(cmd.Context(), e, p)
			}
			return reportRun(e, p, j, err, nil)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&id, "id", "", "the run to undo (default: the newest apply not yet undone)")
	fl.BoolVar(&yes, "yes", false, "restore (default: only show what would be restored)")
	fl.BoolVar(&list, "list", false, "list the journaled runs")
	fl.BoolVar(&pg, "postgres", false, "undo a PostgreSQL run made over SQL (ALTER ROLE, ALTER SYSTEM: apply --alter-system or --postgres), reload and read each value back")
	fl.BoolVar(&my, "mysql", false, "undo the newest MySQL/MariaDB run made live (apply --mysql: SET GLOBAL), reading each value back")
	fl.StringVar(&journalDir, "journal-dir", apply.DefaultJournalDir, "where runs are journaled")
	return cmd
}

// listRuns lists every run journaled in dir: the host's (files and kernel
// values), and those made over SQL on PostgreSQL and live on MySQL/MariaDB.
func listRuns(e *env, dir string) error {
	all, err := apply.Journals(dir)
	if err != nil {
		return err
	}
	pg, err := pgapply.Journals(dir)
	if err != nil {
		return err
	}
	my, err := myapply.Journals(mysqlJournalDir(dir))
	if err != nil {
		return err
	}
	if e.json {
		return writeJSON(e.stdout, map[string]any{"schema": "dbmem.journals/v1", "runs": all, "postgres_runs": pg, "mysql_runs": my})
	}
	if len(all)+len(pg)+len(my) == 0 {
		fmt.Fprintf(e.stdout, "no runs journaled in %s\n", dir)
	}
	for _, j := range all {
		fmt.Fprintln(e.stdout, j.Summary(all))
	}
	if len(pg) > 0 {
		fmt.Fprintln(e.stdout, "PostgreSQL runs over SQL (rollback --postgres):")
	}
	for _, j := range pg {
		fmt.Fprintln(e.stdout, j.Summary(pg))
	}
	if len(my) > 0 {
		fmt.Fprintln(e.stdout, "MySQL/MariaDB runs made live (rollback --mysql):")
	}
	for _, j := range my {
		fmt.Fprintln(e.stdout, j.Summary())
	}
	return nil
}
