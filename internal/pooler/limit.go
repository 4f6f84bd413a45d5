package pooler

import (
	"fmt"
	"sort"
	"strings"
)

// Limit is the most server connections the poolers on a host may open to
// one PostgreSQL instance, with the arithmetic and what it rests on.
type Limit struct {
	// Max is the most when Known; when not Known it is only the least the
	// poolers may open (what the known pools add up to), and Gaps say
	// what leaves it open.
	Max   int  `json:"max"`
	Known bool `json:"known"`
	// ByMode splits Max by pool_mode: a session pool holds a server
	// connection for each connected client, a transaction pool only for
	// each running transaction.
	ByMode map[string]int `json:"by_mode,omitempty"`
	// Formula is the sum with its numbers; Evidence what it rests on.
	Formula  string   `json:"formula"`
	Evidence []string `json:"evidence,omitempty"`
	Gaps     []string `json:"gaps,omitempty"`
	// Measured is what the consoles said now, when one was read.
	Measured *Measured  `json:"measured,omitempty"`
	Pools    []PoolPart `json:"pools"`
}

// Measured sums the SHOW POOLS rows of the pools that point at the
// instance.
type Measured struct {
	// Servers are the server connections open (sv_active + sv_idle +
	// sv_used + sv_tested + sv_login): backends the instance pays for.
	Servers       int `json:"servers"`
	ServersActive int `json:"servers_active"`
	ClientsActive int `json:"clients_active"`
	// ClientsWaiting are clients queued for a server connection (the pool
	// is too small for the load at this moment); MaxWaitSeconds is the
	// longest wait.
	ClientsWaiting int `json:"clients_waiting"`
	MaxWaitSeconds int `json:"max_wait_seconds"`
	// Poolers is how many poolers answered; Complete says every pooler
	// that points at the instance did.
	Poolers  int  `json:"poolers"`
	Complete bool `json:"complete"`
}

// PoolPart is one term of the sum: a pooler's pool (or group of pools)
// pointing at the instance.
type PoolPart struct {
	Pooler   string `json:"pooler"` // "pgbouncer 4242"
	Kind     Kind   `json:"kind"`
	PID      int    `json:"pid"`
	Database string `json:"database"` // client-side name
	// User is the pool's user; "" when there is one pool per client user.
	User string `json:"user,omitempty"`
	Mode string `json:"mode"`
	// Max is this part's most; Unbounded says nothing caps it (Max is then
	// what is known of it).
	Max       int  `json:"max"`
	Unbounded bool `json:"unbounded,omitempty"`
	// PerPool is one pool's most (pool size, with the reserve when it
	// applies; 0 when a pool has no limit).
	PerPool int    `json:"per_pool,omitempty"`
	Formula string `json:"formula"`
	// Servers and Waiting are measured (SHOW POOLS), when read.
	Servers *int `json:"servers,omitempty"`
	Waiting *int `json:"waiting,omitempty"`
}

// ServerConnections computes the Limit of the poolers found on a host
// toward one instance. Pure: it reads only what Discover gathered.
func ServerConnections(found []*Pooler, target Target) Limit {
	l := Limit{Known: true, ByMode: map[string]int{}, Pools: []PoolPart{}}
	var m Measured
	pointing := 0
	for _, p := range found {
		var parts []PoolPart
		var ev, gaps []string
		switch p.Kind {
		case PgBouncer:
			parts, ev, gaps = pgbouncerParts(p, target)
		case PgCat:
			parts, ev, gaps = pgcatParts(p, target)
		case Odyssey:
			parts, ev, gaps = odysseyParts(p, target)
		}
		if len(parts) == 0 && len(gaps) == 0 {
			continue
		}
		pointing++
		if p.Console != nil {
			m.Poolers++
			addMeasured(&m, p, parts)
		}
		l.add(parts)
		l.Evidence = append(l.Evidence, ev...)
		l.Gaps = append(l.Gaps, gaps...)
	}
	l.Known = l.Known && len(l.Gaps) == 0
	l.Formula = formulaOf(l)
	if m.Poolers > 0 {
		m.Complete = m.Poolers == pointing
		l.Measured = &m
	}
	return l
}

// add sums the parts.
func (l *Limit) add(parts []PoolPart) {
	for _, pp := range parts {
		l.Pools = append(l.Pools, pp)
		l.Max += pp.Max
		l.ByMode[pp.Mode] += pp.Max
		if pp.Unbounded {
			l.Known = false
		}
	}
}

// addMeasured adds the SHOW POOLS rows of the parts' databases.
func addMeasured(m *Measured, p *Pooler, parts []PoolPart) {
	dbs := map[string]bool{}
	for _, pp := range parts {
		dbs[pp.Database] = true
	}
	for _, s := range p.Console.Pools {
		if !dbs[s.Database] {
			continue
		}
		m.Servers += s.Servers()
		m.ServersActive += s.SvActive
		m.ClientsActive += s.ClActive
		m.ClientsWaiting += s.ClWaiting
		m.MaxWaitSeconds = max(m.MaxWaitSeconds, s.MaxWaitSeconds)
	}
}

// formulaOf writes the sum, by pooler: "pgbouncer 4242: shop 25 (pool_size
// 20 + reserve_pool 5) + reports 10 (pool_size 10) = 35".
func formulaOf(l Limit) string {
	if len(l.Pools) == 0 {
		if len(l.Gaps) > 0 {
			return "no pool is known to point at this instance"
		}
		return "no pooler points at this instance: 0"
	}
	var groups []string
	for i := 0; i < len(l.Pools); {
		var terms []string
		j := i
		for ; j < len(l.Pools) && l.Pools[j].Pooler == l.Pools[i].Pooler; j++ {
			terms = append(terms, l.Pools[j].Term())
		}
		groups = append(groups, l.Pools[i].Pooler+": "+strings.Join(terms, " + "))
		i = j
	}
	s := strings.Join(groups, "; ")
	if len(l.Pools) > 1 {
		s = fmt.Sprintf("%s = %d", s, l.Max)
	}
	if !l.Known {
		s += fmt.Sprintf(" (at least %d: not every pool is bounded)", l.Max)
	}
	return s
}

// Term is the part as a term of the sum: "shop 25 (pool_size 20 +
// reserve_pool 5)", "app/alice 10 (...)", "tenants at least 20 (...)".
func (p PoolPart) Term() string {
	name := p.Database
	if p.User != "" && p.Pooler != "" && !strings.HasPrefix(p.Pooler, "pgbouncer") {
		name += "/" + p.User
	}
	n := fmt.Sprint(p.Max)
	if p.Unbounded {
		n = "at least " + n
	}
	return fmt.Sprintf("%s %s (%s)", name, n, p.Formula)
}

func sortStrings(s []string) { sort.Strings(s) }
