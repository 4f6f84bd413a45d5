package postgres_test

import (
	"context"
	"os"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
)

// BenchmarkLive: one Live (prove the server, connect, read version,
// settings and pg_stat_activity, check the backend) directly as root, and
// through the helper re-executed as postgres, against a test cluster.
//
//	go test -run '^$' -bench Live -benchtime 50x ./internal/postgres/
func BenchmarkLive(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("the helper needs root")
	}
	c := pgtest.Start(b, nil)
	ins, _, err := postgres.Discover(context.Background(), linux.DefaultFS(), postgres.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var in *postgres.Instance
	for _, x := range ins {
		if x.PostmasterPID == c.PID {
			in = x
		}
	}
	for name, conn := range map[string]postgres.Connector{
		"direct": {Options: postgres.ConnOptions{User: "postgres"}},
		"helper": {Helper: postgres.NewHelper()},
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := conn.Live(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
