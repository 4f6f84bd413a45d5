package pooler_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pooler"
)

// TestArchetypeBehindPgBouncer checks dbmem against the verdict written by
// hand in testdata/behind-pgbouncer/README.md: DBHost's published
// configuration, three databases without a forced user, pool_size 20 per
// user and database and no max_db_connections: at least 60 server
// connections, no bound; a warning, and no "more than PostgreSQL allows".
func TestArchetypeBehindPgBouncer(t *testing.T) {
	dir, _ := filepath.Abs("testdata/behind-pgbouncer")
	fs := linux.FS{Proc: filepath.Join(dir, "proc"), Sys: filepath.Join(dir, "sys"), Root: filepath.Join(dir, "root")}
	found, gaps, err := pooler.Discover(context.Background(), fs, pooler.Options{})
	if err != nil || len(found) != 1 || len(gaps) > 0 {
		t.Fatalf("found %d poolers, gaps %v, err %v", len(found), gaps, err)
	}
	p := found[0]
	if p.Kind != pooler.PgBouncer || p.ConfigFile != "/etc/pgbouncer/pgbouncer.ini" || p.Refused || p.UID != 101 {
		t.Fatalf("pooler %+v", p)
	}
	target := pooler.Target{Port: 5432, SocketDirs: []string{"/var/run/postgresql"}, ListenAddresses: []string{"localhost"}}
	l := pooler.ServerConnections(found, target)
	if l.Known || l.Max != 60 || l.ByMode["transaction"] != 60 || len(l.Gaps) != 3 || l.Measured != nil {
		t.Errorf("limit %d known %v by mode %v measured %v gaps %q", l.Max, l.Known, l.ByMode, l.Measured, l.Gaps)
	}
	a := pooler.Advise(pooler.AdviceInput{Engine: "PostgreSQL", MaxConnections: 300, Reserved: 3, Limit: &l})
	if a.Kind != "pooler-findings" || len(a.Findings) != 1 || a.Findings[0].Severity != "warning" ||
		!strings.Contains(a.Findings[0].Title, "a pool without a bound") {
		t.Errorf("advice %+v", a)
	}
	if len(a.Changes) != 3 || a.Changes[0].Command != "dbmem pooler set --pid 7230 my_app.max_db_connections=20" {
		t.Errorf("changes %+v", a.Changes)
	}
	// The fix the verdict names: max_db_connections = 20 on each database.
	for i := range p.PgBouncer.Databases {
		p.PgBouncer.Databases[i].MaxDBConnections = pooler.Value{N: 20, From: "fix"}
	}
	l = pooler.ServerConnections(found, target)
	if !l.Known || l.Max != 60 || len(l.Gaps) != 0 {
		t.Errorf("after the fix: limit %d known %v gaps %q", l.Max, l.Known, l.Gaps)
	}
	if a := pooler.Advise(pooler.AdviceInput{Engine: "PostgreSQL", MaxConnections: 300, Reserved: 3, Limit: &l}); a.Kind != "pooler-ok" {
		t.Errorf("after the fix: advice %+v", a)
	}
}
