package iniapply_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/apply"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/pooler/bouncertest"
	"github.com/dbmem/dbmem/internal/pooler/iniapply"
)

// TestMain makes this test binary dbmem's console helper.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == pooler.ConsoleHelperCommand {
		if err := pooler.ServeHelper(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func start(t *testing.T) (*bouncertest.Bouncer, *pooler.Pooler) {
	c := pgtest.Start(t, nil)
	dest := fmt.Sprintf("host=%s port=%d dbname=postgres", c.SocketDir, c.Port)
	b := bouncertest.Start(t, bouncertest.Options{
		Databases: []string{"shop = " + dest + " user=postgres password=never-shown pool_size=20", "tenants = " + dest},
		Settings:  []string{"pool_mode = transaction", "%include limits.ini"},
		Files:     map[string]string{"limits.ini": "default_pool_size = 20\n"},
	})
	found, _, err := pooler.Discover(context.Background(), linux.DefaultFS(), pooler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range found {
		if p.PID == b.PID {
			return b, p
		}
	}
	t.Fatalf("pgbouncer %d not found", b.PID)
	return nil, nil
}

// TestApplyAndRollbackRealPgBouncer: pool sizes are written into
// pgbouncer.ini and the include that sets default_pool_size, with
// backups; RELOAD makes PgBouncer run with them (SHOW DATABASES, SHOW
// CONFIG); the diff never shows the password; rolling back restores the
// files byte for byte and PgBouncer's old values.
func TestApplyAndRollbackRealPgBouncer(t *testing.T) {
	b, p := start(t)
	before := map[string]string{"pgbouncer.ini": read(t, b.Ini), "limits.ini": read(t, filepath.Join(b.Dir, "limits.ini"))}
	o := apply.Options{JournalDir: t.TempDir()}
	changes := []pooler.Change{{Database: "shop", Key: "pool_size", Value: 7}, {Database: "tenants", Key: "max_db_connections", Value: 9},
		{Key: "default_pool_size", Value: 11}}
	ctx := context.Background()
	plan, err := iniapply.Prepare(ctx, linux.DefaultFS(), p, changes, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 2 || strings.Contains(plan.Diff, "never-shown") || !strings.Contains(plan.Diff, "password=REDACTED") {
		t.Fatalf("plan of %d files, diff:\n%s", len(plan.Files), plan.Diff)
	}
	con := pooler.Connector{Helper: pooler.NewHelper()}
	j, err := iniapply.Apply(ctx, plan, o, con)
	if err != nil {
		t.Fatal(err)
	}
	run, _, err := con.Console(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := pooler.Verify(run, changes); err != nil || run.Config["default_pool_size"] != "11" {
		t.Errorf("after apply: %v; default_pool_size %s", err, run.Config["default_pool_size"])
	}
	for _, f := range j.Files {
		if f.Backup == "" || read(t, f.Backup) != before[filepath.Base(f.Path)] {
			t.Errorf("backup of %s: %q", f.Path, f.Backup)
		}
	}
	// A plain rollback restores only render's files: it names the command
	// that undoes this run (which also runs RELOAD).
	if _, err := apply.PrepareRollback(o, ""); err == nil || !strings.Contains(err.Error(), "undo it with dbmem pooler rollback --id "+j.ID) {
		t.Errorf("dbmem rollback of a pooler run: %v", err)
	}
	if _, err := iniapply.Rollback(ctx, o, "", p, con); err != nil {
		t.Fatal(err)
	}
	for name, text := range before {
		if got := read(t, filepath.Join(b.Dir, name)); got != text {
			t.Errorf("%s after rollback:\n%s\nwant\n%s", name, got, text)
		}
	}
	run, _, _ = con.Console(ctx, p)
	if err := pooler.Verify(run, []pooler.Change{{Database: "shop", Key: "pool_size", Value: 20}, {Key: "default_pool_size", Value: 20}}); err != nil {
		t.Errorf("after rollback: %v", err)
	}
}

// failingReload is a RELOAD that fails once (PgBouncer restarted, its
// console gone), then the real one.
type failingReload struct {
	real  pooler.Connector
	calls int
}

func (f *failingReload) Reload(ctx context.Context, p *pooler.Pooler) (*pooler.Console, string, error) {
	f.calls++
	if f.calls == 1 {
		return nil, "", errors.New("the console did not answer")
	}
	return f.real.Reload(ctx, p)
}

// TestFailedReloadRollsBack: when RELOAD fails, the files are restored
// from their backups and PgBouncer reloads the old ones.
func TestFailedReloadRollsBack(t *testing.T) {
	b, p := start(t)
	before := read(t, b.Ini)
	o := apply.Options{JournalDir: t.TempDir()}
	ctx := context.Background()
	plan, err := iniapply.Prepare(ctx, linux.DefaultFS(), p, []pooler.Change{{Database: "shop", Key: "pool_size", Value: 3}}, o)
	if err != nil {
		t.Fatal(err)
	}
	r := &failingReload{real: pooler.Connector{Helper: pooler.NewHelper()}}
	_, err = iniapply.Apply(ctx, plan, o, r)
	if err == nil || !strings.Contains(err.Error(), "rolled back") || r.calls != 2 {
		t.Fatalf("apply: %v after %d reloads", err, r.calls)
	}
	if read(t, b.Ini) != before {
		t.Error("pgbouncer.ini was not restored")
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
