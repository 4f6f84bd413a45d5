package pooler_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/pooler/bouncertest"
)

// BenchmarkDiscoverHost: what every snapshot pays to look for poolers on
// this host (the /proc scan and the files of those found), without the
// console.
func BenchmarkDiscoverHost(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, _, err := pooler.Discover(context.Background(), linux.DefaultFS(), pooler.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLimitArchetype: ServerConnections, pure, on the archetype.
func BenchmarkLimitArchetype(b *testing.B) {
	dir, _ := filepath.Abs("testdata/behind-pgbouncer")
	fs := linux.FS{Proc: filepath.Join(dir, "proc"), Sys: filepath.Join(dir, "sys"), Root: filepath.Join(dir, "root")}
	found, _, _ := pooler.Discover(context.Background(), fs, pooler.Options{})
	t := pooler.Target{Port: 5432, ListenAddresses: []string{"localhost"}}
	for i := 0; i < b.N; i++ {
		pooler.ServerConnections(found, t)
	}
}

// BenchmarkConsoleRead: one read of a real PgBouncer's console as root:
// prove the socket, run the helper as the pooler's account, connect, and
// SHOW VERSION, POOLS, DATABASES and CONFIG.
func BenchmarkConsoleRead(b *testing.B) {
	c := pgtest.Start(b, nil)
	bo := bouncertest.Start(b, bouncertest.Options{Databases: []string{fmt.Sprintf("app = host=%s port=%d dbname=postgres", c.SocketDir, c.Port)}})
	found, _, _ := pooler.Discover(context.Background(), linux.DefaultFS(), pooler.Options{})
	var p *pooler.Pooler
	for _, f := range found {
		if f.PID == bo.PID {
			p = f
		}
	}
	con := pooler.Connector{Helper: pooler.NewHelper()}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := con.Console(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
}
