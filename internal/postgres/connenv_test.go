package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
)

func TestConnOptionsWithEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		opt        postgres.ConnOptions
		getenv     func(string) string
		host, from string
		port       int
		bad        bool
	}{
		{postgres.ConnOptions{}, env(), "", "", 0, false},
		{postgres.ConnOptions{}, env("PGHOST", "/run/pg", "PGPORT", "5433"), "/run/pg", "PGPORT", 5433, false},
		{postgres.ConnOptions{}, env("PGHOST", "db.example"), "db.example", "", 0, false},
		// The flags win.
		{postgres.ConnOptions{Host: "/tmp", Port: 5434}, env("PGHOST", "/run/pg", "PGPORT", "5433"), "/tmp", "--pg-port", 5434, false},
		{postgres.ConnOptions{}, env("PGPORT", "fivefourthreetwo"), "", "", 0, true},
		{postgres.ConnOptions{}, env("PGPORT", "70000"), "", "", 0, true},
	} {
		o, from, err := c.opt.WithEnv(c.getenv)
		if (err != nil) != c.bad || err == nil && (o.Host != c.host || o.Port != c.port || from != c.from) {
			t.Errorf("%+v: host %q port %d from %q err %v; want %q %d %q bad=%v", c.opt, o.Host, o.Port, from, err, c.host, c.port, c.from, c.bad)
		}
	}
}

// TestConnectorHonoursPGHOSTAndPGPORT: with no --pg-host or --pg-port,
// PGHOST replaces the socket directory of postmaster.pid and PGPORT keeps
// only the instance on that port.
func TestConnectorHonoursPGHOSTAndPGPORT(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"shared_buffers": "32MB"})
	ctx := context.Background()
	// A socket directory nobody listens in: only PGHOST leads to the server.
	in := &postgres.Instance{PostmasterPID: c.PID, Port: c.Port, SocketDir: t.TempDir()}
	conn := postgres.Connector{Options: postgres.ConnOptions{User: "postgres"}}
	t.Setenv("PGPORT", "")
	t.Setenv("PGHOST", "")
	if _, err := conn.Live(ctx, in); err == nil {
		t.Fatal("connected through an empty socket directory")
	}
	t.Setenv("PGHOST", c.SocketDir)
	l, err := conn.Live(ctx, in)
	if err != nil || l.Settings.String("shared_buffers") != "32MB" || !strings.Contains(l.As, c.SocketDir) {
		t.Errorf("with PGHOST=%s: %+v %v", c.SocketDir, l, err)
	}
	t.Setenv("PGPORT", fmt.Sprint(c.Port+1))
	if _, err := conn.Live(ctx, in); err == nil || !strings.Contains(err.Error(), "PGPORT") {
		t.Errorf("PGPORT=%d selects another instance, got %v", c.Port+1, err)
	}
	t.Setenv("PGPORT", fmt.Sprint(c.Port))
	if _, err := conn.Live(ctx, in); err != nil {
		t.Errorf("PGPORT=%d is this instance: %v", c.Port, err)
	}
	// --pg-host wins over PGHOST.
	flag := postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Host: t.TempDir()}}
	if _, err := flag.Live(ctx, in); err == nil {
		t.Error("--pg-host (an empty directory) lost to PGHOST")
	}
}
