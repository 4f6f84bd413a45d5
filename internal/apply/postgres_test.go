package apply

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
)

// TestPostgresConfD writes a setting into a real cluster's conf.d with
// --postgres: PostgreSQL reads it (postgres -C), the server is not
// restarted, and the rollback removes the file.
func TestPostgresConfD(t *testing.T) {
	needRoot(t)
	c := pgtest.Create(t, map[string]string{"include_dir": "conf.d"})
	confD := filepath.Join(c.DataDir, "conf.d")
	os.Mkdir(confD, 0o700)
	_, uid, gid := statOf(t, c.DataDir)
	os.Chown(confD, uid, gid)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	in := discover(t, ctx, c)
	dir, err := PostgresConfDir(linux.DefaultFS(), in)
	if err != nil || dir != confD {
		t.Fatalf("PostgresConfDir: %q %v, want %s", dir, err, confD)
	}
	o := testOptions(t)
	o.FilesRoot, o.Engines, o.Postgres = "/", nil, true
	o.Render.PostgresConfDir, o.Render.Units = dir, []string{in.Unit}
	s := []finding.Setting{{Target: finding.TargetPostgres, Name: "work_mem", Value: "7MB", Restart: "PostgreSQL", Formula: "test", Why: "test"}}
	p, err := Prepare(s, o)
	if err != nil || len(p.Refusals) > 0 {
		t.Fatalf("prepare: %v %v", err, p.Refusals)
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), "after a restart of PostgreSQL (dbmem never restarts a database)") {
		t.Errorf("notes do not say a restart is needed: %q", p.Notes)
	}
	j, err := Run(p, o)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(confD, "60-dbmem.conf")
	if _, fuid, _ := statOf(t, file); fuid != uid {
		t.Errorf("%s belongs to uid %d, want the data directory's %d", file, fuid, uid)
	}
	expectSetting(t, ctx, c, "work_mem", "7168")
	if !pgcluster.Alive(in.PostmasterPID) {
		t.Error("the postmaster is gone: apply must never restart a database")
	}
	if _, err := Run(mustPrepareRollback(t, o, j.ID), o); err != nil {
		t.Fatal(err)
	}
	mustNotExist(t, file)
	expectSetting(t, ctx, c, "work_mem", "4096")
}

func discover(t *testing.T, ctx context.Context, c *pgcluster.Cluster) *postgres.Instance {
	t.Helper()
	ins, _, err := postgres.Discover(ctx, linux.DefaultFS(), postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		if in.DataDir == c.DataDir {
			return in
		}
	}
	t.Fatalf("the test cluster %s was not discovered", c.DataDir)
	return nil
}

func expectSetting(t *testing.T, ctx context.Context, c *pgcluster.Cluster, name, want string) {
	t.Helper()
	got, err := c.Postgres(ctx, "-C", name)
	if err != nil || got != want {
		t.Errorf("postgres -C %s: %q %v, want %q", name, got, err, want)
	}
}

func mustPrepareRollback(t *testing.T, o Options, id string) *Plan {
	t.Helper()
	p, err := PrepareRollback(o, id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
