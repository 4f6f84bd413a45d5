package pooler

import (
	"fmt"
	"strconv"
)

// bouncerGlobalsOf takes the running values (SHOW CONFIG) where the
// console gave them, else the files' (or PgBouncer's defaults).
func bouncerGlobalsOf(p *Pooler) bouncerGlobals {
	c := p.PgBouncer
	g := bouncerGlobals{Mode: c.PoolMode.S, SocketDir: c.UnixSocketDir.S, MaxUser: c.MaxUserConnections.N,
		MinPool: c.MinPoolSize.N, Source: "the configuration files"}
	g.ReserveTimeout, _ = parseSeconds(c.ReservePoolTimeout.S)
	g.IdleTimeout = secondsOr(c.ServerIdleTimeout.S, 600)
	if p.Console == nil || len(p.Console.Config) == 0 {
		return g
	}
	cfg := p.Console.Config
	g.Source = "SHOW CONFIG (the running values)"
	if v, ok := cfg["pool_mode"]; ok && poolModes[v] {
		g.Mode = v
	}
	if v, ok := cfg["unix_socket_dir"]; ok {
		g.SocketDir = v
	}
	if v, ok := cfg["reserve_pool_timeout"]; ok {
		if f, ok := parseSeconds(v); ok {
			g.ReserveTimeout = f
		}
	}
	intOf(cfg, "max_user_connections", &g.MaxUser)
	intOf(cfg, "min_pool_size", &g.MinPool)
	if v, ok := cfg["server_idle_timeout"]; ok {
		g.IdleTimeout = secondsOr(v, g.IdleTimeout)
	}
	return g
}

func intOf(cfg map[string]string, key string, into *int) {
	if n, err := strconv.Atoi(cfg[key]); err == nil {
		*into = n
	}
}

func secondsOr(s string, def int) int {
	if f, ok := parseSeconds(s); ok {
		return int(f)
	}
	return def
}

// bouncerDBsOf lists the database entries: SHOW DATABASES when the
// console was read (the running pools, with defaults filled in by
// PgBouncer), else the files' with PgBouncer's rules for defaults.
func bouncerDBsOf(p *Pooler, g bouncerGlobals) []bouncerDB {
	var out []bouncerDB
	if p.Console != nil && len(p.Console.Databases) > 0 {
		for _, r := range p.Console.Databases {
			if r.Name == "pgbouncer" {
				continue // the admin console: no server connections
			}
			out = append(out, bouncerDB{Name: r.Name, Host: r.Host, Port: r.Port, ForcedUser: r.ForceUser,
				Mode: firstNonEmpty(r.PoolMode, g.Mode), PoolSize: r.PoolSize, Reserve: r.ReservePool, MaxDB: r.MaxConnections})
		}
		return out
	}
	c := p.PgBouncer
	for _, d := range c.Databases {
		b := bouncerDB{Name: d.Name, Host: d.Host, Port: d.Port, ForcedUser: d.ForcedUser, Mode: firstNonEmpty(d.PoolMode, g.Mode),
			PoolSize: c.DefaultPoolSize.N, Reserve: c.ReservePoolSize.N, MaxDB: c.MaxDBConnections.N}
		if d.PoolSize.Set() && d.PoolSize.N >= 0 {
			b.PoolSize = d.PoolSize.N
		} else {
			b.SizeDefault = !c.DefaultPoolSize.Set()
		}
		if d.ReservePool.Set() && d.ReservePool.N >= 0 {
			b.Reserve = d.ReservePool.N
		}
		if d.MaxDBConnections.Set() && d.MaxDBConnections.N > 0 {
			b.MaxDB = d.MaxDBConnections.N
		}
		out = append(out, b)
	}
	return out
}

// bouncerEvidence says what the numbers rest on and what they leave out.
func bouncerEvidence(name string, g bouncerGlobals) []string {
	ev := []string{fmt.Sprintf("%s: limits from %s", name, g.Source)}
	if g.MinPool > 0 {
		ev = append(ev, fmt.Sprintf("%s: min_pool_size %d keeps that many server connections open in every pool, even with no client", name, g.MinPool))
	}
	if g.IdleTimeout > 0 {
		ev = append(ev, fmt.Sprintf("%s: server_idle_timeout %d s: an idle server connection stays open (a backend the instance pays for) that long after its last use", name, g.IdleTimeout))
	} else {
		ev = append(ev, fmt.Sprintf("%s: server_idle_timeout 0: idle server connections are never closed", name))
	}
	ev = append(ev, fmt.Sprintf("%s: a cancel request may briefly open one more connection per pool, up to 2 x pool_size (PgBouncer 1.16+); "+
		"it runs no session and is not counted", name))
	return ev
}
