package plan

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// TestPoolsOf: the budget's Pools are pooler.ServerConnections of the
// poolers the snapshot found; none found is a bound of 0, known; a
// what-if (no snapshot) looked for none.
func TestPoolsOf(t *testing.T) {
	pg := &postgres.Instance{Port: 5432, SocketDir: "/run/postgresql"}
	cfg := pooler.PgBouncerConfig{ReservePoolTimeout: pooler.Setting{S: "5"}, PoolMode: pooler.Setting{S: "transaction"},
		Databases: []pooler.Database{{Name: "app", Host: "/var/run/postgresql", Port: 5432, ForcedUser: "app",
			PoolSize: pooler.Value{N: 20, From: "f:2"}, ReservePool: pooler.Value{N: 5, From: "f:2"}}}}
	s := &snapshot.Snapshot{Poolers: []*pooler.Pooler{{Kind: pooler.PgBouncer, PID: 811, PgBouncer: &cfg}}}
	p := poolsOf(s, pg)
	if p == nil || !p.Known || p.MaxServerConnections != 25 || !strings.Contains(p.Formula, "app 25 (pool_size 20 + reserve_pool 5)") {
		t.Errorf("pools %+v", p)
	}
	if p := poolsOf(&snapshot.Snapshot{}, pg); p == nil || !p.Known || p.MaxServerConnections != 0 {
		t.Errorf("no pooler: %+v", p)
	}
	if poolsOf(nil, pg) != nil {
		t.Error("a what-if has no pools")
	}
}
