package plan

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/servertrust"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// poolsOf is what the connection poolers on the host can open to the
// instance (pooler.ServerConnections over the poolers the snapshot found),
// for the budget; nil without a snapshot (a what-if looks for none). Only
// poolers run by a trusted account (postgres, pgbouncer, --server-account,
// dbmem's own), from a configuration file such an account owns, shape it:
// anyone can start a pgbouncer whose file claims small pools, and a budget
// that believed it would raise work_mem for connections that file does not
// bound. The others are said, not counted.
func poolsOf(s *snapshot.Snapshot, pg *postgres.Instance, trust servertrust.Policy, fs linux.FS) *budget.Pools {
	if s == nil {
		return nil
	}
	var trusted []*pooler.Pooler
	var notes []budget.Evidence
	for _, p := range s.Poolers {
		if why := untrustedPooler(p, trust, fs); why != "" {
			notes = append(notes, budget.Evidence{Name: "pooler not counted", Source: "its process and configuration file",
				Value: fmt.Sprintf("%s %d: %s: its pools do not shape this budget", p.Kind, p.PID, why)})
			continue
		}
		trusted = append(trusted, p)
	}
	l := pooler.ServerConnections(trusted, pooler.TargetOf(pg))
	p := &budget.Pools{MaxServerConnections: l.Max, Known: l.Known, Formula: l.Formula, Evidence: notes}
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

// poolerAccounts are the accounts a pooler's packages run it as.
var poolerAccounts = []string{"postgres", "pgbouncer"}

// untrustedPooler says why p may not shape a budget, or "".
func untrustedPooler(p *pooler.Pooler, trust servertrust.Policy, fs linux.FS) string {
	run := servertrust.AccountOf(p.UID)
	if p.Account != "" {
		run.Name = p.Account
	}
	if !trust.Trusted(run, poolerAccounts...) {
		return fmt.Sprintf("run by %s, not a trusted account (%s)", run, trust.TrustedList(poolerAccounts...))
	}
	if p.ConfigFile == "" || !fs.IsLive() {
		return "" // a capture keeps no owners: the process's account decides
	}
	o, err := servertrust.Stat(fs.HostPath(p.ConfigFile), true)
	if err != nil {
		return "" // unreadable: its gaps say so, and ServerConnections has no bound from it
	}
	if owner := servertrust.AccountOf(o.UID); !trust.Trusted(owner, poolerAccounts...) {
		return fmt.Sprintf("its configuration file %s is owned by %s, not a trusted account (%s)", p.ConfigFile, owner, trust.TrustedList(poolerAccounts...))
	}
	return ""
}
