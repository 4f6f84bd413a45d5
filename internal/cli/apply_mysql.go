package cli

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/myapply"
	"github.com/dbmem/dbmem/internal/mysql"
)

// mySQL is what apply --mysql carries out on the running server: SET GLOBAL
// for the dynamic variables, after the [mysqld] drop-in is written.
type mySQL struct {
	subject  string
	db       *sql.DB
	settings map[string]string
	live     []myapply.Change
	restart  []string
	journal  *myapply.Journal
}

// mysqlJournalDir is where apply's live MySQL runs are journaled.
func mysqlJournalDir(dir string) string { return filepath.Join(dir, "mysql") }

// prepareMySQL connects to the server the MySQL settings are for; nil when
// there are none or --mysql was not given.
func (f applyFlags) prepareMySQL(ctx context.Context, e *env, settings []finding.Setting) (*mySQL, error) {
	set := map[string]string{}
	for _, s := range settings {
		if s.Target == finding.TargetMySQL {
			set[s.Name] = s.Value
		}
	}
	if !f.mysql || len(set) == 0 {
		return nil, nil
	}
	live, restart, err := myapply.Plan(set)
	if err != nil {
		return nil, usageError{err}
	}
	in, db, err := openMySQL(ctx, e)
	if err != nil {
		return nil, err
	}
	return &mySQL{subject: advise.MySQLSubject(in), db: db, settings: set, live: live, restart: restart}, nil
}

// openMySQL finds the running server (--mysql-port keeps one) and connects.
func openMySQL(ctx context.Context, e *env) (*mysql.Instance, *sql.DB, error) {
	all, _, err := mysql.Discover(ctx, e.fs(), mysql.Options{})
	if err != nil {
		return nil, nil, err
	}
	var chosen []*mysql.Instance
	for _, in := range all {
		if e.my.Port == 0 || in.Port == e.my.Port {
			chosen = append(chosen, in)
		}
	}
	if len(chosen) != 1 {
		return nil, nil, usageError{fmt.Errorf("MySQL settings live: %d MySQL/MariaDB servers match here: choose one with --mysql-port", len(chosen))}
	}
	db, _, err := e.mysqlConnector().Open(ctx, chosen[0])
	if err != nil {
		return nil, nil, fmt.Errorf("MySQL settings live: %w", err)
	}
	return chosen[0], db, nil
}

func (m *mySQL) close() {
	if m != nil {
		m.db.Close()
	}
}

// run sets the dynamic variables and reads them back.
func (m *mySQL) run(ctx context.Context, journalDir string) error {
	defer m.db.Close()
	var err error
	m.journal, err = myapply.Run(ctx, m.db, m.settings, mysqlJournalDir(journalDir), m.subject)
	return err
}

// writeMySQL prints the live MySQL part of a plan or a run.
func writeMySQL(w io.Writer, m *mySQL) {
	if m == nil {
		return
	}
	fmt.Fprintf(w, "\nMYSQL (live: %s)\n", inert.Text(m.subject))
	changes := m.live
	if m.journal != nil {
		changes = m.journal.Changes
	}
	for _, c := range changes {
		line := fmt.Sprintf("  SET GLOBAL %s = %s", c.Name, c.New)
		if c.Old != "" {
			line += " (was " + c.Old + ")"
		}
		if c.Got != "" {
			line += " (SHOW GLOBAL VARIABLES: " + c.Got + ")"
		}
		fmt.Fprintln(w, inert.Text(line))
	}
	if m.journal == nil {
		fmt.Fprintln(w, "  then SHOW GLOBAL VARIABLES reads each back; a value not taken undoes the run")
	} else {
		fmt.Fprintf(w, "  %s (journal %s)\n", m.journal.Status, m.journal.Path)
		if m.journal.Status == "done" && len(m.journal.Changes) > 0 {
			fmt.Fprintln(w, "  undo with: dbmem rollback --mysql --yes")
		}
	}
	for _, r := range m.restart {
		fmt.Fprintf(w, "  %s takes effect only at a restart of the server (the [mysqld] drop-in holds it; dbmem never restarts a database)\n", inert.Text(r))
	}
}

// rollbackMySQL undoes the newest live MySQL run.
func rollbackMySQL(ctx context.Context, e *env, journalDir string, yes bool) error {
	j, err := myapply.Latest(mysqlJournalDir(journalDir))
	if err != nil {
		return err
	}
	m := &mySQL{subject: j.Instance, journal: j}
	fmt.Fprintf(e.stdout, "MYSQL (live: %s): undo run %s\n", inert.Text(j.Instance), filepath.Base(j.Path))
	for _, c := range j.Changes {
		if c.Done {
			fmt.Fprintln(e.stdout, inert.Text(fmt.Sprintf("  SET GLOBAL %s = %s (now %s)", c.Name, c.Old, c.New)))
		}
	}
	if !yes {
		fmt.Fprintln(e.stdout, "  (dry run: --yes undoes it)")
		return nil
	}
	_, db, err := openMySQL(ctx, e)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := myapply.Rollback(ctx, db, m.journal); err != nil {
		return errors.Join(errors.New("MySQL rollback"), err)
	}
	fmt.Fprintf(e.stdout, "  %s (journal %s)\n", j.Status, j.Path)
	return nil
}
