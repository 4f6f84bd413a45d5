package plan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/servertrust"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// TestChildrenGetNoEnvironment: a variable of dbmem's environment (root's
// secrets) reaches no PostgreSQL program plan runs. The binary directory
// given as --pg-bin holds a root-owned postgres that records its
// environment and runs the real one (initdb and pg_ctl link to the real
// ones): a what-if (throwaway cluster) and a stopped cluster run it as
// root (--version) and as postgres (-C).
func TestChildrenGetNoEnvironment(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("plan runs PostgreSQL as the data directory's owner only as root")
	}
	real, err := pgcluster.FindBin("")
	if err != nil {
		t.Fatal(err)
	}
	bin, out := recordingBin(t, real)
	t.Setenv("DBMEM_ROOT_SECRET", "root-secret-marker")
	t.Setenv("LD_LIBRARY_PATH", "/nonexistent-root-only")
	t.Setenv(pgcluster.BinEnv, "")
	ctx := context.Background()
	settings := map[string]string{"shared_buffers": "64MB"}
	if _, err := Build(ctx, Request{WhatIf: WhatIf{RAMBytes: 8 << 30}, Changes: settings, Bin: bin}); err != nil {
		t.Fatal(err)
	}
	c := pgtest.Create(t, settings)
	if _, err := Build(ctx, Request{Snapshot: verHost(t), DataDir: c.DataDir, Bin: bin}); err != nil {
		t.Fatal(err)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "env.*"))
	if len(runs) < 4 {
		t.Fatalf("%d runs of postgres recorded, want --version and -C for each plan", len(runs))
	}
	for _, r := range runs {
		env, err := os.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(env), "root-secret-marker") || strings.Contains(string(env), "LD_LIBRARY_PATH") ||
			!strings.Contains(string(env), "LC_ALL=C\n") {
			t.Errorf("a postgres run got the environment:\n%s", env)
		}
	}
}

// recordingBin makes a root-owned binary directory whose postgres writes
// its environment to OUT/env.PID and execs real's.
func recordingBin(t *testing.T, real string) (bin, out string) {
	t.Helper()
	base, err := os.MkdirTemp("", "dbmem-envbin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	bin, out = filepath.Join(base, "bin"), filepath.Join(base, "out")
	for _, d := range []string{bin, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(base, 0o755)
	os.Chmod(out, os.ModeSticky|0o777) // postgres -C runs as the data directory's owner
	script := fmt.Sprintf("#!/bin/sh\n/usr/bin/env > %s/env.$$\nexec %s/postgres \"$@\"\n", out, real)
	if err := os.WriteFile(filepath.Join(bin, "postgres"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"initdb", "pg_ctl"} {
		if err := os.Symlink(filepath.Join(real, p), filepath.Join(bin, p)); err != nil {
			t.Fatal(err)
		}
	}
	return bin, out
}

// TestVersionsPreloadedLibraries plans a genuine cluster of postgres (a
// trusted account) that preloads pg_stat_statements, on every version:
// unchanged, its need is its own SHOW (which counts the library); with a
// larger shared_buffers the throwaway cluster, which loads no library, is
// asked, and the library's share measured on the running server is added.
func TestVersionsPreloadedLibraries(t *testing.T) {
	pgtest.ForEachVersion(t, 15, func(t *testing.T, v pgtest.Version) {
		c := pgtest.Start(t, map[string]string{"shared_buffers": "64MB", "shared_preload_libraries": "pg_stat_statements"})
		ctx := context.Background()
		s, err := snapshot.Take(ctx, snapshot.Options{FS: linux.DefaultFS(), Live: postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Port: c.Port}}})
		if err != nil {
			t.Fatal(err)
		}
		pg := findInstance(t, s, c.PID)
		if pg.Owners == nil || pg.Owners.Process.Name != "postgres" {
			t.Fatalf("owners of the cluster: %+v", pg.Owners)
		}
		in, err := Build(ctx, Request{Snapshot: s, Port: c.Port})
		if err != nil {
			t.Fatal(err)
		}
		n := in.Instances[0].Need
		if r := advise.Plan(in); len(r.LeftOut) > 0 || r.HugePages == nil || n.Source != "SHOW shared_memory_size_in_huge_pages" {
			t.Fatalf("unchanged: need %+v, left out %+v", n, r.LeftOut)
		}
		changed, err := Build(ctx, Request{Snapshot: s, Port: c.Port, Changes: map[string]string{"shared_buffers": "128MB"}})
		if err != nil {
			t.Fatal(err)
		}
		got := changed.Instances[0].Need
		libs, _ := pg.Settings.Bytes("shared_memory_size")
		if !strings.Contains(got.Source, "throwaway") || !strings.Contains(got.Source, "for shared_preload_libraries 'pg_stat_statements'") ||
			got.Pages < n.Pages+32 || got.Pages > n.Pages+35 || got.SharedBytes < libs+63<<20 {
			t.Errorf("with 64 MB more shared_buffers: %+v (unchanged %+v, SHOW shared_memory_size %d)", got, n, libs)
		}
		t.Logf("PostgreSQL %d: unchanged %d pages (%s); changed %d pages: %s", v.Major, n.Pages, n.Source, got.Pages, got.Source)
	})
}

// TestUntrustedInstancesLeftOut: running instances whose owners were
// read as nobody's (PostgreSQL, MariaDB) are planned for nothing and
// nothing is run for them (their need is an estimate); trusted with
// --server-account nobody they are planned; with no owners recorded (a
// --proc tree) they are planned as read, with a note.
func TestUntrustedInstancesLeftOut(t *testing.T) {
	nobody := servertrust.Account{UID: 65534, Name: "nobody"}
	owners := &servertrust.Ownership{Process: nobody, Binary: &servertrust.FileOwner{Path: "/tmp/x/postgres", Owner: nobody, Perm: 0o755},
		DataDir: &servertrust.FileOwner{Path: "/tmp/x/data", Owner: nobody, Perm: 0o700}}
	s := verHost(t)
	set := postgres.Defaults(15)
	set["shared_buffers"] = postgres.Setting{Value: "9GB", Bytes: new(uint64(9 << 30)), Source: postgres.FromConfigFile}
	set["shared_preload_libraries"] = postgres.Setting{Value: "/tmp/x/evil.so", Source: postgres.FromConfigFile}
	s.Postgres = []*postgres.Instance{{PostmasterPID: 4242, DataDir: "/tmp/x/data", Port: 5499, Major: 15, Settings: set, Owners: owners}}
	my := &mysql.Instance{PID: 4343, Flavor: mysql.MariaDB, Major: 10, Minor: 11, DataDir: "/tmp/x/my", Settings: mysql.Defaults(mysql.MariaDB), Owners: owners}
	my.Settings["large_pages"] = mysql.Setting{Value: "ON", Source: mysql.FromConfigFile}
	s.MySQL = []*mysql.Instance{my}
	in, err := Build(context.Background(), Request{Snapshot: s})
	if err != nil {
		t.Fatal(err)
	}
	for _, pi := range in.Instances {
		if !strings.Contains(pi.Untrusted, "run by nobody") || pi.Need.Exact && pi.MySQL == nil {
			t.Errorf("%s: untrusted %q, need %+v", pi.Subject, pi.Untrusted, pi.Need)
		}
	}
	if r := advise.Plan(in); len(r.LeftOut) != 2 || r.HugePages != nil {
		t.Errorf("left out %+v, pool %+v", r.LeftOut, r.HugePages)
	}
	in, err = Build(context.Background(), Request{Snapshot: s, Trust: servertrust.Policy{Accounts: []string{"nobody"}}})
	if err != nil {
		t.Fatal(err)
	}
	if r := advise.Plan(in); len(r.LeftOut) != 0 || len(r.WorstCases) != 2 {
		t.Errorf("with --server-account nobody: left out %+v, %d worst cases", r.LeftOut, len(r.WorstCases))
	}
	s.Postgres[0].Owners, my.Owners = nil, nil
	in, err = Build(context.Background(), Request{Snapshot: s})
	if err != nil {
		t.Fatal(err)
	}
	if r := advise.Plan(in); len(r.LeftOut) != 0 || !strings.Contains(strings.Join(r.Notes, "\n"), "owners of 2 instance(s) not recorded") {
		t.Errorf("owners not recorded: left out %+v, notes %q", r.LeftOut, r.Notes)
	}
}

// TestConfigurationDirectory: --data-dir naming a configuration directory
// (Debian's /etc/postgresql/15/main) whose postgresql.conf names the data
// directory. Its version is found by reading that file as its owner, with
// nothing run; the need is asked as the owner. A configuration directory
// of another account than its data directory is not trusted.
func TestConfigurationDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("plan runs PostgreSQL as the data directory's owner only as root")
	}
	c := pgtest.Create(t, map[string]string{"shared_buffers": "64MB"})
	want := uint64(pgtest.HugePagesNeeded(t, c))
	conf, err := os.ReadFile(filepath.Join(c.DataDir, "postgresql.conf"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(c.Dir, "etc")
	os.Mkdir(dir, 0o700)
	conf = append(conf, fmt.Sprintf("\ndata_directory = '%s'\n", c.DataDir)...)
	os.WriteFile(filepath.Join(dir, "postgresql.conf"), conf, 0o600)
	st, _ := os.Stat(c.DataDir)
	uid, gid := int(st.Sys().(*syscall.Stat_t).Uid), int(st.Sys().(*syscall.Stat_t).Gid)
	for _, p := range []string{dir, filepath.Join(dir, "postgresql.conf")} {
		os.Chown(p, uid, gid)
	}
	in, err := Build(context.Background(), Request{Snapshot: verHost(t), DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if n := in.Instances[0].Need; !n.Exact || n.Pages != want || in.Instances[0].Untrusted != "" {
		t.Errorf("configuration directory: need %+v (untrusted %q), the cluster says %d", n, in.Instances[0].Untrusted, want)
	}
	os.Chown(dir, 0, 0) // root's, readable by postgres, as Debian's: trusted as well
	os.Chown(filepath.Join(dir, "postgresql.conf"), 0, 0)
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Join(dir, "postgresql.conf"), 0o644)
	if in, err = Build(context.Background(), Request{Snapshot: verHost(t), DataDir: dir}); err != nil || in.Instances[0].Need.Pages != want {
		t.Errorf("root's configuration directory: %v %+v", err, in.Instances)
	}
	os.Chown(dir, 65534, 65534)
	os.Chown(filepath.Join(dir, "postgresql.conf"), 65534, 65534)
	in, err = Build(context.Background(), Request{Snapshot: verHost(t), DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if pi := in.Instances[0]; !strings.Contains(pi.Untrusted, "its configuration directory "+dir+" is owned by nobody") || pi.Need.Exact {
		t.Errorf("nobody's configuration directory of postgres's data: %+v", pi)
	}
}
