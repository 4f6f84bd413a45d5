package pooler

import (
	"fmt"
	"strconv"
	"strings"
)

// pgcatParts: for every pool, user and server of a shard that is the
// target, pool_size connections (pgcat opens one pool per address and
// user).
func pgcatParts(p *Pooler, t Target) (parts []PoolPart, ev, gaps []string) {
	name := fmt.Sprintf("pgcat %d", p.PID)
	if p.PgCat == nil || p.Refused {
		return nil, nil, []string{fmt.Sprintf("%s: its configuration was not read or would not load: its pools are unknown (%s)", name, problemsText(p))}
	}
	for _, pool := range p.PgCat.Pools {
		servers := 0
		for _, sh := range pool.Shards {
			for _, s := range sh.Servers {
				switch t.reaches(s.Host, s.Port, "") {
				case reachYes:
					servers++
				case reachUnknown:
					gaps = append(gaps, fmt.Sprintf("%s pool %s shard %s: host %s port %d may be this instance (dbmem resolves no names): not counted",
						name, pool.Name, sh.Index, s.Host, s.Port))
				}
			}
		}
		if servers == 0 {
			continue
		}
		for _, u := range pool.Users {
			pp := PoolPart{Pooler: name, Kind: PgCat, PID: p.PID, PerPool: u.PoolSize.N, Database: pool.Name, User: u.Username, Mode: firstNonEmpty(u.PoolMode, pool.PoolMode.S),
				Max: u.PoolSize.N * servers, Formula: fmt.Sprintf("pool_size %d x %d server entries", u.PoolSize.N, servers)}
			if !u.PoolSize.Set() {
				pp.Unbounded, pp.Formula = true, "no pool_size"
				gaps = append(gaps, fmt.Sprintf("%s pool %s user %s: no pool_size (pgcat requires one)", name, pool.Name, u.Username))
			}
			parts = append(parts, pp)
		}
	}
	if len(parts) > 0 {
		ev = []string{name + ": limits from its configuration file (its console was not read)"}
	}
	return parts, ev, gaps
}

// odysseyParts: each route whose storage is the target holds at most
// pool_size connections; a "default" database or user stands for one
// route per name that connects, so only a known route count bounds it.
func odysseyParts(p *Pooler, t Target) (parts []PoolPart, ev, gaps []string) {
	name := fmt.Sprintf("odyssey %d", p.PID)
	if p.Odyssey == nil || p.Refused {
		return nil, nil, []string{fmt.Sprintf("%s: its configuration was not read or would not load: its pools are unknown (%s)", name, problemsText(p))}
	}
	hits := map[string]bool{}
	for _, st := range p.Odyssey.Storages {
		if st.Type == "local" {
			continue
		}
		switch r := odysseyReach(st, t); {
		case r == reachYes:
			hits[st.Name] = true
		case r == reachUnknown && st.Host == "":
			gaps = append(gaps, fmt.Sprintf("%s storage %s: a unix socket on port %d may be this instance (Odyssey's socket directory is not read): not counted", name, st.Name, st.Port.N))
		case r == reachUnknown:
			gaps = append(gaps, fmt.Sprintf("%s storage %s: host %s may be this instance (dbmem resolves no names): not counted", name, st.Name, st.Host))
		}
	}
	for _, r := range p.Odyssey.Routes {
		if !hits[r.Storage] {
			continue
		}
		pp := PoolPart{Pooler: name, Kind: Odyssey, PID: p.PID, PerPool: r.PoolSize.N, Database: r.Database, User: r.User, Mode: r.Pool, Max: r.PoolSize.N,
			Formula: fmt.Sprintf("pool_size %d", r.PoolSize.N)}
		switch {
		case r.PoolSize.N == 0:
			pp.Unbounded, pp.Formula = true, "pool_size 0 is no limit"
		case r.Database == "default" || r.User == "default":
			pp.Unbounded, pp.Formula = true, fmt.Sprintf("pool_size %d per database and user that connect: no bound", r.PoolSize.N)
		}
		if pp.Unbounded {
			gaps = append(gaps, fmt.Sprintf("%s route %s/%s: %s", name, r.Database, r.User, pp.Formula))
		}
		parts = append(parts, pp)
	}
	if len(parts) > 0 {
		ev = []string{name + ": limits from its configuration file (its console was not read)"}
	}
	return parts, ev, gaps
}

// odysseyReach reads a storage's host list: "h1,h2", "[h]:port,...", or
// "" (a unix socket; Odyssey's unix_socket_dir is not read: unknown).
func odysseyReach(st OdysseyStorage, t Target) reach {
	if st.Host == "" {
		if st.Port.N == t.Port {
			return reachUnknown
		}
		return reachNo
	}
	best := reachNo
	for _, h := range strings.Split(st.Host, ",") {
		host, port := strings.TrimSpace(h), st.Port.N
		if strings.HasPrefix(host, "[") {
			if end := strings.Index(host, "]"); end > 0 {
				if p, err := strconv.Atoi(strings.TrimPrefix(host[end+1:], ":")); err == nil {
					port = p
				}
				host = host[1:end]
			}
		}
		switch t.reaches(host, port, "") {
		case reachYes:
			return reachYes
		case reachUnknown:
			best = reachUnknown
		}
	}
	return best
}
