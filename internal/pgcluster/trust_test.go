package pgcluster_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

// TestCheckBin: root runs a program only when only root could have put it
// there. Each refusal names the component that another account controls.
func TestCheckBin(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("CheckBin checks nothing unless dbmem runs as root")
	}
	base, err := os.MkdirTemp("", "dbmem-checkbin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	mk := func(dir string, mode os.FileMode, uid int) string {
		d := filepath.Join(base, dir)
		os.MkdirAll(d, 0o755)
		os.Chmod(d, mode)
		os.Chown(d, uid, 0)
		p := filepath.Join(d, "postgres")
		os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
		return d
	}
	good := mk("good", 0o755, 0)
	sticky := mk("sticky", os.ModeSticky|0o777, 0)
	writable := mk("writable", 0o777, 0)
	nobodysDir := mk("nobodys", 0o755, 65534)
	nobodysFile := mk("nobodysfile", 0o755, 0)
	os.Chown(filepath.Join(nobodysFile, "postgres"), 65534, 65534)
	worldFile := mk("worldfile", 0o755, 0)
	os.Chmod(filepath.Join(worldFile, "postgres"), 0o757)
	linked := mk("linked", 0o755, 0)
	os.Remove(filepath.Join(linked, "postgres"))
	os.Symlink(filepath.Join(nobodysFile, "postgres"), filepath.Join(linked, "postgres"))
	for _, c := range []struct {
		dir, want string
	}{
		{good, ""}, {sticky, ""},
		{writable, "directory " + writable + " may be written by others (mode 0777"},
		{nobodysDir, nobodysDir + " is owned by uid 65534, not root"},
		{nobodysFile, nobodysFile + "/postgres is owned by uid 65534"},
		{worldFile, "may be written by others (mode 0757"},
		{linked, nobodysFile + "/postgres is owned by uid 65534"},
		{filepath.Join(base, "missing"), "no such file"},
	} {
		err := pgcluster.CheckBin(c.dir, "postgres")
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.dir, err, c.want)
		}
	}
}

// TestServerEnvironmentIsCleared: a variable in the environment of the
// process that creates and starts a cluster (root's secrets, in dbmem)
// reaches neither initdb's nor the running postmaster's environment.
func TestServerEnvironmentIsCleared(t *testing.T) {
	t.Setenv("DBMEM_TEST_SECRET", "root-secret-marker")
	t.Setenv("PGOPTIONS", "-c work_mem=1MB")
	c := pgtest.Start(t, map[string]string{"shared_buffers": "16MB"})
	env, err := os.ReadFile("/proc/" + strconv.Itoa(c.PID) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	vars := bytes.Split(bytes.TrimRight(env, "\x00"), []byte{0})
	if bytes.Contains(env, []byte("root-secret-marker")) || bytes.Contains(env, []byte("PGOPTIONS")) {
		t.Errorf("the postmaster's environment holds the caller's variables: %q", vars)
	}
	// pgcluster.Env's, and what pg_ctl, its shell and Debian's build add.
	allowed := map[string]bool{"PWD": true, "SHLVL": true, "_": true, "PGDATA": true, "PG_GRANDPARENT_PID": true,
		"PGLOCALEDIR": true, "PGSYSCONFDIR": true}
	for _, v := range pgcluster.Env() {
		name, _, _ := strings.Cut(v, "=")
		allowed[name] = true
	}
	for _, v := range vars {
		if name, _, _ := strings.Cut(string(v), "="); !allowed[name] {
			t.Errorf("the postmaster's environment has %q, not one pgcluster.Env gives nor one PostgreSQL sets", v)
		}
	}
	if !bytes.Contains(env, []byte("LC_ALL=C")) {
		t.Errorf("the postmaster's environment has no LC_ALL=C: %q", vars)
	}
}
