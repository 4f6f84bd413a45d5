package pgapply

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
)

const oddRole = `report "user" ü@x`

// session discovers c's instance and opens a Session on it.
func session(t *testing.T, c *pgcluster.Cluster) Session {
	t.Helper()
	conn := postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Port: c.Port}}
	ins, _, err := postgres.Discover(context.Background(), linux.DefaultFS(), postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		if in.PostmasterPID == c.PID {
			return NewSession(conn, in)
		}
	}
	t.Fatalf("postmaster %d not found", c.PID)
	return nil
}

// show reads values from a new session.
func show(t *testing.T, s Session, stmts ...string) []string {
	t.Helper()
	res, err := s.Exec(context.Background(), stmts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range res {
		var rows []string
		for _, row := range r {
			rows = append(rows, strings.Join(row, "|"))
		}
		out = append(out, strings.Join(rows, ","))
	}
	return out
}

const (
	showWorkMem = "SELECT current_setting('work_mem')"
	showJIT     = "SELECT current_setting('jit')"
	showRole    = "SELECT coalesce((SELECT string_agg(x, ' ') FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole, unnest(s.setconfig) x WHERE r.rolname = 'report \"user\" ü@x'), '')"
	showPending = "SELECT pending_restart::text FROM pg_settings WHERE name = 'max_connections'"
)

// TestVersionsApplyVerifyRollback: on every version, ALTER ROLE (a role
// name with quotes, a space, Unicode and "@") and ALTER SYSTEM are applied,
// reloaded and read back from a new session (SHOW, pg_db_role_setting);
// max_connections is said to need a restart; the rollback restores every
// old value, the role's earlier one included.
func TestVersionsApplyVerifyRollback(t *testing.T) {
	pgtest.ForEachVersion(t, 13, func(t *testing.T, v pgtest.Version) {
		c := pgtest.Start(t, map[string]string{"max_connections": "20"})
		pgtest.Exec(t, c, `CREATE ROLE "report ""user"" ü@x" LOGIN`, `ALTER ROLE "report ""user"" ü@x" SET work_mem = '3MB'`)
		s := session(t, c)
		ctx := context.Background()
		before := show(t, s, showWorkMem, showJIT, showRole)
		cs, err := Changes([]finding.Setting{
			{Target: finding.TargetPostgresRole, Role: oddRole, Name: "work_mem", Value: "64MB"},
			{Target: finding.TargetPostgres, Name: "work_mem", Value: "2MB"},
			{Target: finding.TargetPostgres, Name: "jit", Value: "off"},
			{Target: finding.TargetPostgres, Name: "max_connections", Value: "30"},
		}, true)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Prepare(ctx, s, cs)
		if err != nil {
			t.Fatal(err)
		}
		if p.Changes[0].Old == nil || *p.Changes[0].Old != "3MB" || len(p.Restart) != 1 || p.Restart[0] != "max_connections" {
			t.Fatalf("plan %+v", p)
		}
		dir := t.TempDir()
		j, err := Run(ctx, s, p, Options{JournalDir: dir, Instance: "test"})
		if err != nil {
			t.Fatalf("run: %v (journal %+v)", err, j)
		}
		if got := show(t, s, showWorkMem, showJIT, showRole, showPending); got[0] != "2MB" || got[1] != "off" || got[2] != "work_mem=64MB" || got[3] != "true" {
			t.Errorf("after apply: %q", got)
		}
		rb, err := PrepareRollback(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(ctx, s, rb, Options{JournalDir: dir, Instance: "test"}); err != nil {
			t.Fatalf("rollback: %v", err)
		}
		if got := show(t, s, showWorkMem, showJIT, showRole); strings.Join(got, " ") != strings.Join(before, " ") {
			t.Errorf("after rollback %q, before %q", got, before)
		}
		if _, err := PrepareRollback(dir, ""); err == nil {
			t.Error("a second rollback found a run to undo")
		}
	})
}

// TestRefusedStatementRollsBack: a value the server refuses stops the run
// and undoes the changes made before it.
func TestRefusedStatementRollsBack(t *testing.T) {
	c := pgtest.Start(t, nil)
	pgtest.Exec(t, c, `CREATE ROLE "report ""user"" ü@x" LOGIN`)
	s := session(t, c)
	ctx := context.Background()
	cs, err := Changes([]finding.Setting{
		{Target: finding.TargetPostgresRole, Role: oddRole, Name: "work_mem", Value: "64MB"},
		{Target: finding.TargetPostgres, Name: "work_mem", Value: "1kB"}, // under PostgreSQL's 64kB
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(ctx, s, cs)
	if err != nil {
		t.Fatal(err)
	}
	j, err := Run(ctx, s, p, Options{JournalDir: t.TempDir()})
	if err == nil || j.Status != StatusRolledBack || !strings.Contains(err.Error(), "work_mem") {
		t.Fatalf("run: %v, status %s", err, j.Status)
	}
	if got := show(t, s, showRole); got[0] != "" {
		t.Errorf("the role keeps %q after the rollback", got[0])
	}
}

// TestShadowedFileValueRollsBack: a conf.d value that postgresql.auto.conf
// overrides is not what the server shows: the run fails, naming where to
// look, and the role change made with it is undone.
func TestShadowedFileValueRollsBack(t *testing.T) {
	c := pgtest.Start(t, nil)
	pgtest.Exec(t, c, `CREATE ROLE "report ""user"" ü@x" LOGIN`, `ALTER SYSTEM SET work_mem = '3MB'`, `SELECT pg_reload_conf()`)
	s := session(t, c)
	ctx := context.Background()
	old := VerifyTimeout
	VerifyTimeout = 5 * time.Second // the failure is what is tested: no wait for a value that never comes
	t.Cleanup(func() { VerifyTimeout = old })
	cs, _ := Changes([]finding.Setting{
		{Target: finding.TargetPostgresRole, Role: oddRole, Name: "work_mem", Value: "64MB"},
		{Target: finding.TargetPostgres, Name: "work_mem", Value: "5MB"},
	}, false)
	p, err := Prepare(ctx, s, cs)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(ctx, s, p, Options{JournalDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "pg_file_settings") {
		t.Fatalf("run: %v, want the shadowed value named", err)
	}
	if got := show(t, s, showRole); got[0] != "" {
		t.Errorf("the role keeps %q", got[0])
	}
}

// TestSQLASCIIDatabase: a database in SQL_ASCII (initdb --locale=C
// without -E makes one) takes the statements too: pgx's simple protocol
// would refuse it (client_encoding is not UTF8).
func TestSQLASCIIDatabase(t *testing.T) {
	c := pgtest.Start(t, nil)
	pgtest.Exec(t, c, `CREATE DATABASE ascii ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`, `CREATE ROLE "report ""user"" ü@x" LOGIN`)
	conn := postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Port: c.Port, Database: "ascii"}}
	ins, _, err := postgres.Discover(context.Background(), linux.DefaultFS(), postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var s Session
	for _, in := range ins {
		if in.PostmasterPID == c.PID {
			s = NewSession(conn, in)
		}
	}
	ctx := context.Background()
	cs, _ := Changes([]finding.Setting{{Target: finding.TargetPostgresRole, Role: oddRole, Name: "work_mem", Value: "64MB"}}, true)
	p, err := Prepare(ctx, s, cs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, s, p, Options{JournalDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if got := show(t, s, showRole); got[0] != "work_mem=64MB" {
		t.Errorf("role setting %q", got[0])
	}
}
