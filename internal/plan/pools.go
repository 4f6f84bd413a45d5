package plan

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// poolsOf is what the connection poolers on the host can open to the
// instance (pooler.ServerConnections over the poolers the snapshot found),
// for the budget; nil without a snapshot (a what-if looks for none).
func poolsOf(s *snapshot.Snapshot, pg *postgres.Instance) *budget.Pools {
	if s == nil {
		return nil
	}
	l := pooler.ServerConnections(s.Poolers, pooler.TargetOf(pg))
	p := &budget.Pools{MaxServerConnections: l.Max, Known: l.Known, Formula: l.Formula}
	for _, g := range l.Gaps {
		p.Evidence = append(p.Evidence, budget.Evidence{Name: "pooler without a bound", Value: g, Source: "its configuration"})
	}
	for _, e := range l.Evidence {
		p.Evidence = append(p.Evidence, budget.Evidence{Name: "pooler", Value: e, Source: "its configuration and console"})
	}
	if m := l.Measured; m != nil {
		p.Evidence = append(p.Evidence, budget.Evidence{Name: "server connections open", Source: "SHOW POOLS",
			Value: fmt.Sprintf("%d (%d active), %d clients waiting", m.Servers, m.ServersActive, m.ClientsWaiting)})
	}
	return p
}
