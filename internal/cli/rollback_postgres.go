package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/apply"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/pgapply"
	"github.com/dbmem/dbmem/internal/postgres"
)

// rollbackPostgres undoes a PostgreSQL run made over SQL (ALTER ROLE,
// ALTER SYSTEM): the newest not yet undone, or id; shown unless yes.
func rollbackPostgres(ctx context.Context, e *env, journalDir, id string, yes bool) error {
	p, err := pgapply.PrepareRollback(journalDir, id)
	if err != nil {
		return err
	}
	ins, _, err := postgres.Discover(ctx, e.fs(), postgres.Options{})
	if err != nil {
		return err
	}
	port, err := e.pgPort()
	if err != nil {
		return err
	}
	in, err := pickInstance(ins, port, true)
	if err != nil {
		return err
	}
	if in == nil {
		return errors.New("rollback --postgres: no PostgreSQL instance runs here")
	}
	conn := e.pgConnector()
	pg := &pgSQL{in: in, session: pgapply.NewSession(conn, in), plan: p}
	if !yes {
		if e.json {
			return writeJSON(e.stdout, map[string]any{"schema": "dbmem.rollback.postgres/v1", "dry_run": true, "postgres": pgDoc(pg)})
		}
		writePG(e.stdout, pg)
		fmt.Fprintf(e.stdout, "\nDry run: nothing was changed. To restore, run it again with --yes (or: dbmem rollback --postgres --id %s --yes)\n", p.Undoes)
		return nil
	}
	pg.journal, pg.err = pgapply.Run(ctx, pg.session, p, pgapply.Options{JournalDir: journalDir, Instance: advise.PostgresSubject(in)})
	if e.json {
		if err := writeJSON(e.stdout, map[string]any{"schema": "dbmem.rollback.postgres/v1", "dry_run": false, "postgres": pgDoc(pg)}); err != nil {
			return err
		}
	} else {
		writePG(e.stdout, pg)
	}
	if pg.err != nil {
		fmt.Fprintf(e.stderr, "dbmem: postgresql rollback: %v\n", pg.err)
		return exitError{ExitError}
	}
	return nil
}

// rollbackLocked holds apply's lock around a PostgreSQL rollback.
func rollbackLocked(ctx context.Context, e *env, o apply.Options, id string, yes bool) error {
	if yes {
		var release func()
		var err error
		if o, release, err = apply.Lock(o); err != nil {
			return lockError(e, err)
		}
		defer release()
	}
	return rollbackPostgres(ctx, e, o.JournalDir, id, yes)
}

// reloadRestored reloads each running PostgreSQL instance whose conf.d
// file a rollback restored: the old values take effect as they came
// (settings that need a restart excepted). It says what it did.
func reloadRestored(ctx context.Context, e *env, p *apply.Plan) {
	ins, _, err := postgres.Discover(ctx, e.fs(), postgres.Options{})
	if err != nil {
		return
	}
	for _, in := range ins {
		dir, err := apply.PostgresConfDir(e.fs(), in)
		if err != nil || !restoredIn(p, dir) {
			continue
		}
		s := pgapply.NewSession(e.pgConnector(), in)
		if _, err := s.Exec(ctx, []string{"SELECT pg_reload_conf()"}); err != nil {
			fmt.Fprintf(e.stderr, "dbmem: the conf.d file of %s was restored but the reload failed: %v (reload it: pg_ctl reload, or SELECT pg_reload_conf())\n",
				inert.Text(advise.PostgresSubject(in)), err)
			continue
		}
		fmt.Fprintf(e.stdout, "reloaded %s: its restored conf.d file takes effect (a setting that needs a restart waits for one)\n", inert.Text(advise.PostgresSubject(in)))
	}
}

func restoredIn(p *apply.Plan, dir string) bool {
	for _, f := range p.Files {
		if !f.Noop() && filepath.Dir(f.Path) == filepath.Clean(dir) {
			return true
		}
	}
	return false
}
