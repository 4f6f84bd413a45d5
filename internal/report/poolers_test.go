package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/report"
)

// TestTextPoolers: the POOLERS section on the recorded PostgreSQL host
// with a PgBouncer in front of it whose configuration names a database
// with escape sequences: the bound and its formula are shown, every
// foreign string inert, and --json carries the same limit.
func TestTextPoolers(t *testing.T) {
	s := fixtureSnapshot(t, "pg15-hugepages-on")
	in := s.Postgres[0]
	evil := "shop\x1b]0;PWN\x07\x1b[2J"
	cfg := pooler.PgBouncerConfig{PoolMode: pooler.Setting{S: "transaction", From: "/etc/pgbouncer/pgbouncer.ini:9"},
		DefaultPoolSize: pooler.Value{N: 20, From: "default"}, ReservePoolTimeout: pooler.Setting{S: "5", From: "default"},
		UnixSocketDir: pooler.Setting{S: "/tmp", From: "default"},
		Databases: []pooler.Database{{Name: evil, Host: in.SocketDir, Port: in.Port, DBName: "shop", ForcedUser: "app",
			PoolSize: pooler.Value{N: 12, From: "/etc/pgbouncer/pgbouncer.ini:2"}}}}
	s.Poolers = []*pooler.Pooler{{Kind: pooler.PgBouncer, PID: 4321, Account: "postgres", ConfigFile: "/etc/pgbouncer/pgbouncer.ini",
		Files: []string{"/etc/pgbouncer/pgbouncer.ini"}, PgBouncer: &cfg, Connection: "not connected: pools from the configuration files only"}}
	var b bytes.Buffer
	if err := report.Text(&b, s, report.Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	head := fmt.Sprintf("To PostgreSQL postmaster %d, port %d: at most 12 server connections, transaction pooling", in.PostmasterPID, in.Port)
	for _, want := range []string{"POOLERS  1 running", "pgbouncer 4321 (postgres)  /etc/pgbouncer/pgbouncer.ini", head,
		`shop\x1b]0;PWN\x07\x1b[2J 12 (pool_size 12)`, "pool_mode transaction (pgbouncer.ini:9), default_pool_size 20 (default)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Error("an escape sequence reached the output")
	}
	var doc report.Document
	b.Reset()
	if err := report.JSON(&b, s); err != nil || json.Unmarshal(b.Bytes(), &doc) != nil {
		t.Fatal(err)
	}
	if len(doc.PoolerLimits) != 1 || doc.PoolerLimits[0].Max != 12 || !doc.PoolerLimits[0].Known || doc.PoolerLimits[0].Advice.Kind != "pooler-ok" {
		t.Errorf("pooler_limits %+v", doc.PoolerLimits)
	}
}
