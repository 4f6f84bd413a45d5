package plan

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/servertrust"
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
	p := poolsOf(s, pg, servertrust.Policy{}, linux.FS{})
	if p == nil || !p.Known || p.MaxServerConnections != 25 || !strings.Contains(p.Formula, "app 25 (pool_size 20 + reserve_pool 5)") {
		t.Errorf("pools %+v", p)
	}
	if p := poolsOf(&snapshot.Snapshot{}, pg, servertrust.Policy{}, linux.FS{}); p == nil || !p.Known || p.MaxServerConnections != 0 {
		t.Errorf("no pooler: %+v", p)
	}
	if poolsOf(nil, pg, servertrust.Policy{}, linux.FS{}) != nil {
		t.Error("a what-if has no pools")
	}
}

// TestUntrustedPoolerShapesNoBudget: a pgbouncer run by an account that is
// not trusted (uid 4242, nobody named) claims pools of 25; the budget
// counts none of them and says why. Named in --server-account, it counts.
func TestUntrustedPoolerShapesNoBudget(t *testing.T) {
	pg := &postgres.Instance{Port: 5432, SocketDir: "/run/postgresql"}
	cfg := pooler.PgBouncerConfig{ReservePoolTimeout: pooler.Setting{S: "5"}, PoolMode: pooler.Setting{S: "transaction"},
		Databases: []pooler.Database{{Name: "app", Host: "/var/run/postgresql", Port: 5432, ForcedUser: "app",
			PoolSize: pooler.Value{N: 20, From: "f:2"}, ReservePool: pooler.Value{N: 5, From: "f:2"}}}}
	s := &snapshot.Snapshot{Poolers: []*pooler.Pooler{{Kind: pooler.PgBouncer, PID: 811, UID: 4242, Account: "mallory", PgBouncer: &cfg}}}
	p := poolsOf(s, pg, servertrust.Policy{}, linux.FS{})
	if p == nil || p.MaxServerConnections != 0 || len(p.Evidence) != 1 || p.Evidence[0].Name != "pooler not counted" ||
		!strings.Contains(p.Evidence[0].Value, "pgbouncer 811: run by mallory") {
		t.Errorf("untrusted pooler: %+v", p)
	}
	p = poolsOf(s, pg, servertrust.Policy{Accounts: []string{"mallory"}}, linux.FS{})
	if p.MaxServerConnections != 25 || len(p.Evidence) != 0 && p.Evidence[0].Name == "pooler not counted" {
		t.Errorf("pooler of a --server-account: %+v", p)
	}
}
