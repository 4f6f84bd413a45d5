package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/apply"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/pgapply"
	"github.com/dbmem/dbmem/internal/postgres"
)

// pgSQL is what apply carries out over SQL on one instance: per-role
// settings (ALTER ROLE), server settings with --alter-system (ALTER
// SYSTEM), and the reload and check of what the conf.d file holds.
type pgSQL struct {
	in      *postgres.Instance
	session pgapply.Session
	plan    *pgapply.Plan
	journal *pgapply.Journal
	err     error
}

// splitSQL takes out of settings what goes over SQL: role settings with
// --postgres or --alter-system, server settings with --alter-system. The
// conf.d settings stay with apply and are checked after it (files).
func (f applyFlags) splitSQL(settings []finding.Setting) (files, sql []finding.Setting) {
	if !f.postgres && !f.alterSystem {
		return settings, nil
	}
	for _, s := range settings {
		switch {
		case s.Target == finding.TargetPostgresRole, s.Target == finding.TargetPostgres && f.alterSystem:
			sql = append(sql, s)
		case s.Target == finding.TargetPostgres:
			sql = append(sql, s) // checked after apply writes it
			files = append(files, s)
		default:
			files = append(files, s)
		}
	}
	return files, sql
}

// preparePG reads what the SQL changes replace; nil when there are none.
func (f applyFlags) preparePG(ctx context.Context, e *env, sql []finding.Setting, ins []*postgres.Instance) (*pgSQL, error) {
	if len(sql) == 0 {
		return nil, nil
	}
	port, err := e.pgPort()
	if err != nil {
		return nil, err
	}
	in, err := pickInstance(ins, port, true)
	if err != nil {
		return nil, err
	}
	if in == nil {
		return nil, errors.New("PostgreSQL settings over SQL: no PostgreSQL instance runs here")
	}
	cs, err := pgapply.Changes(sql, f.alterSystem)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL settings: %w", err)
	}
	conn := e.pgConnector()
	pg := &pgSQL{in: in, session: pgapply.NewSession(conn, in)}
	if pg.plan, err = pgapply.Prepare(ctx, pg.session, cs); err != nil {
		return nil, fmt.Errorf("PostgreSQL %s: %w", advise.PostgresSubject(in), err)
	}
	return pg, nil
}

// run carries the SQL changes out after apply's run; when they fail and
// apply wrote files, apply's run is rolled back too.
func (pg *pgSQL) run(ctx context.Context, o apply.Options, fileRun *apply.Journal) error {
	pg.journal, pg.err = pgapply.Run(ctx, pg.session, pg.plan, pgapply.Options{JournalDir: o.JournalDir, Instance: advise.PostgresSubject(pg.in)})
	if pg.err == nil || fileRun == nil || fileRun.Status != apply.StatusDone || len(fileRun.Files)+len(fileRun.Live) == 0 {
		return pg.err
	}
	p, err := apply.PrepareRollback(o, fileRun.ID)
	if err == nil {
		_, err = apply.Run(p, o)
	}
	if err != nil {
		return fmt.Errorf("%w; rolling back the files of run %s failed too: %v", pg.err, fileRun.ID, err)
	}
	return fmt.Errorf("%w; run %s (files) was rolled back", pg.err, fileRun.ID)
}

// writePG prints the SQL part of a plan or a run.
func writePG(w io.Writer, pg *pgSQL) {
	if pg == nil {
		return
	}
	fmt.Fprintf(w, "\nPOSTGRESQL (over SQL: %s)\n", inert.Text(advise.PostgresSubject(pg.in)))
	changes := pg.plan.Changes
	if pg.journal != nil {
		changes = pg.journal.Changes
	}
	for _, c := range changes {
		state := ""
		switch {
		case c.Noop():
			state = " (already set)"
		case pg.journal != nil && c.Got != "":
			state = " (server shows " + c.Got + ")"
		}
		fmt.Fprintf(w, "  %s%s\n", inert.Text(c.String()), inert.Text(state))
	}
	if pg.journal == nil {
		fmt.Fprintln(w, "  then SELECT pg_reload_conf() and a check of every value from a new session")
	} else {
		fmt.Fprintf(w, "  %s (journal %s)\n", pg.journal.Status, pg.journal.Path)
		if pg.journal.Status == pgapply.StatusDone && pg.journal.Kind == "apply" {
			fmt.Fprintf(w, "  undo with: dbmem rollback --postgres --id %s --yes\n", pg.journal.ID)
		}
	}
	for _, r := range pg.plan.Restart {
		fmt.Fprintf(w, "  %s takes effect only at a restart of PostgreSQL (dbmem never restarts a database)\n", r)
	}
}

// pgDoc is the SQL part of apply's JSON.
func pgDoc(pg *pgSQL) map[string]any {
	if pg == nil {
		return nil
	}
	return map[string]any{"instance": advise.PostgresSubject(pg.in), "plan": pg.plan, "journal": pg.journal}
}

// changes reports whether the SQL part changes anything.
func (pg *pgSQL) changes() bool {
	if pg == nil {
		return false
	}
	for _, c := range pg.plan.Changes {
		if !c.Noop() {
			return true
		}
	}
	return false
}

// reportSQL prints a run that changed only PostgreSQL over SQL.
func reportSQL(e *env, pg *pgSQL, err error) error {
	if e.json {
		if jerr := writeJSON(e.stdout, map[string]any{"schema": "dbmem.apply/v1", "dry_run": false, "postgres": pgDoc(pg)}); jerr != nil {
			return jerr
		}
	} else {
		writePG(e.stdout, pg)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "dbmem: postgresql: %v\n", err)
		return exitError{ExitError}
	}
	return nil
}
