package pooler

import (
	"fmt"
	"strconv"
	"strings"
)

// bouncerDB is one database entry as the running PgBouncer has it (SHOW
// DATABASES) or, when the console was not read, as its files say, with
// the global defaults filled in as PgBouncer fills them.
type bouncerDB struct {
	Name, Host, ForcedUser, Mode   string
	Port, PoolSize, Reserve, MaxDB int
	// SizeDefault: no file set the pool size; it is PgBouncer's default.
	SizeDefault bool
}

// bouncerGlobals are the [pgbouncer] values the limit needs: the running
// ones (SHOW CONFIG) when read, else the files'.
type bouncerGlobals struct {
	Mode, SocketDir               string
	ReserveTimeout                float64
	MaxUser, MinPool, IdleTimeout int
	Source                        string
}

// pgbouncerParts are the pools of one PgBouncer that point at target.
func pgbouncerParts(p *Pooler, t Target) (parts []PoolPart, ev, gaps []string) {
	name := fmt.Sprintf("pgbouncer %d", p.PID)
	if p.PgBouncer == nil || p.Refused && p.Console == nil {
		return nil, nil, []string{fmt.Sprintf("%s: its configuration was not read or would not load, and its console was not read: "+
			"its pools are unknown (%s)", name, problemsText(p))}
	}
	g := bouncerGlobalsOf(p)
	dbs := bouncerDBsOf(p, g)
	users := map[string]UserLimit{}
	for _, u := range p.PgBouncer.Users {
		users[u.Name] = u
	}
	for _, d := range dbs {
		switch t.reachesList(d.Host, d.Port, g.SocketDir) {
		case reachYes:
			pp := bouncerPart(name, d, g, users[d.ForcedUser], p.Console)
			pp.PID = p.PID
			parts = append(parts, pp)
		case reachUnknown:
			gaps = append(gaps, fmt.Sprintf("%s database %s: host %s port %d may be this instance (dbmem resolves no names): not counted",
				name, d.Name, d.Host, d.Port))
		}
	}
	if a := p.PgBouncer.Autodb; a != nil && t.reachesList(a.Host, a.Port, g.SocketDir) != reachNo {
		gaps = append(gaps, fmt.Sprintf("%s: the fallback database \"*\" (%s) lets clients open pools to any database name of this instance: "+
			"no bound (list the databases instead)", name, a.From))
	}
	capUsers(parts, users, g)
	for _, pp := range parts {
		if pp.Unbounded {
			gaps = append(gaps, fmt.Sprintf("%s database %s: %s", name, pp.Database, pp.Formula))
		}
	}
	if len(parts) > 0 {
		ev = bouncerEvidence(name, g)
	}
	return parts, ev, gaps
}

// bouncerPart is the most server connections one database entry opens.
func bouncerPart(name string, d bouncerDB, g bouncerGlobals, u UserLimit, con *Console) PoolPart {
	base, reserve := d.PoolSize, d.Reserve
	if u.PoolSize.Set() && u.PoolSize.N >= 0 {
		base = u.PoolSize.N
	}
	if u.ReservePoolSize.Set() && u.ReservePoolSize.N >= 0 {
		reserve = u.ReservePoolSize.N
	}
	pp := PoolPart{Pooler: name, Kind: PgBouncer, Database: d.Name, User: d.ForcedUser, Mode: firstNonEmpty(u.PoolMode, d.Mode, g.Mode)}
	size, per := base, fmt.Sprintf("pool_size %d", base)
	if d.SizeDefault && !u.PoolSize.Set() {
		per += " (PgBouncer's default)"
	}
	if base > 0 && reserve > 0 && g.ReserveTimeout > 0 {
		size, per = base+reserve, fmt.Sprintf("pool_size %d + reserve_pool %d", base, reserve)
	}
	pp.PerPool = max(size, 0)
	switch {
	case base <= 0 && d.MaxDB <= 0:
		pp.Unbounded, pp.Max = true, max(servingNow(con, d.Name), 1)
		pp.Formula = fmt.Sprintf("pool_size %d is no limit to PgBouncer, and no max_db_connections: no bound", base)
	case d.ForcedUser != "" && base > 0 && (d.MaxDB <= 0 || size <= d.MaxDB):
		pp.Max, pp.Formula = size, per
	case d.MaxDB > 0:
		pp.Max, pp.Formula = d.MaxDB, fmt.Sprintf("max_db_connections %d; %s per user", d.MaxDB, paren(per))
	default:
		seen := usersSeen(con, d.Name)
		pp.Unbounded, pp.Max = true, size*max(seen, 1)
		pp.Formula = fmt.Sprintf("%s per client user, %d user(s) seen, and no max_db_connections: no bound", paren(per), seen)
	}
	measure(&pp, con)
	return pp
}

// capUsers applies max_user_connections to the pools of forced users:
// a user's pools together hold at most that many.
func capUsers(parts []PoolPart, users map[string]UserLimit, g bouncerGlobals) {
	sum := map[string]int{}
	for _, pp := range parts {
		if pp.User != "" && !pp.Unbounded {
			sum[pp.User] += pp.Max
		}
	}
	for u, total := range sum {
		limit := g.MaxUser
		if v := users[u].MaxUserConnections; v.Set() && v.N > 0 {
			limit = v.N
		}
		excess := total - limit
		for i := len(parts) - 1; i >= 0 && limit > 0 && excess > 0; i-- {
			if parts[i].User != u || parts[i].Unbounded {
				continue
			}
			cut := min(excess, parts[i].Max)
			parts[i].Max -= cut
			parts[i].Formula += fmt.Sprintf(", less %d: max_user_connections %d of %s", cut, limit, u)
			excess -= cut
		}
	}
}

// measure adds the SHOW POOLS counts of the database's pools.
func measure(pp *PoolPart, con *Console) {
	if con == nil {
		return
	}
	servers, waiting := 0, 0
	for _, s := range con.Pools {
		if s.Database == pp.Database {
			servers += s.Servers()
			waiting += s.ClWaiting
		}
	}
	pp.Servers, pp.Waiting = &servers, &waiting
}

// usersSeen counts the pools (users) SHOW POOLS lists for a database.
func usersSeen(con *Console, db string) int {
	n := 0
	if con != nil {
		for _, s := range con.Pools {
			if s.Database == db {
				n++
			}
		}
	}
	return n
}

func servingNow(con *Console, db string) int {
	n := 0
	if con != nil {
		for _, s := range con.Pools {
			if s.Database == db {
				n += s.Servers()
			}
		}
	}
	return n
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func problemsText(p *Pooler) string {
	var s []string
	for _, pr := range p.Problems {
		s = append(s, pr.String())
	}
	if len(s) == 0 {
		return "no configuration file"
	}
	return strings.Join(s, "; ")
}

// parseSeconds reads a PgBouncer time setting in seconds ("5", "5.0").
func parseSeconds(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil && f >= 0
}

// paren brackets a sum inside a longer phrase.
func paren(s string) string {
	if strings.Contains(s, " + ") {
		return "(" + s + ")"
	}
	return s
}
