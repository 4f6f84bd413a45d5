package pooler

import (
	"cmp"
	"fmt"
	"strconv"
)

// Row is one pool (or group of pools) of a pooler for people: where it
// connects and its limits, measured counts when the console was read. A
// number that is not known or does not apply is "-".
type Row struct {
	Database, Server, User, Mode string
	Pool, Reserve, MaxDB         string
	Open, Active, Waiting        string
}

// Rows lists the pooler's pools: PgBouncer's databases (as the running
// process has them when its console was read), pgcat's pool users and
// Odyssey's routes.
func (p *Pooler) Rows() []Row {
	switch {
	case p.PgBouncer != nil:
		return p.bouncerRows()
	case p.PgCat != nil:
		var out []Row
		for _, pool := range p.PgCat.Pools {
			for _, u := range pool.Users {
				for _, sh := range pool.Shards {
					for _, s := range sh.Servers {
						out = append(out, Row{Database: pool.Name, Server: fmt.Sprintf("%s:%d/%s (%s)", s.Host, s.Port, sh.Database, s.Role),
							User: u.Username, Mode: firstNonEmpty(u.PoolMode, pool.PoolMode.S), Pool: num(u.PoolSize.N, u.PoolSize.Set()),
							Reserve: "-", MaxDB: "-", Open: "-", Active: "-", Waiting: "-"})
					}
				}
			}
		}
		return out
	case p.Odyssey != nil:
		var out []Row
		for _, r := range p.Odyssey.Routes {
			out = append(out, Row{Database: r.Database, Server: "storage " + r.Storage, User: r.User, Mode: r.Pool,
				Pool: num(r.PoolSize.N, r.PoolSize.N > 0), Reserve: "-", MaxDB: "-", Open: "-", Active: "-", Waiting: "-"})
		}
		return out
	}
	return nil
}

func (p *Pooler) bouncerRows() []Row {
	g := bouncerGlobalsOf(p)
	var out []Row
	for _, d := range bouncerDBsOf(p, g) {
		server := d.Host
		server = cmp.Or(server, g.SocketDir)
		user := d.ForcedUser
		user = cmp.Or(user, "(each client's)")
		r := Row{Database: d.Name, Server: fmt.Sprintf("%s:%d", server, d.Port), User: user, Mode: d.Mode,
			Pool: num(d.PoolSize, d.PoolSize > 0), Reserve: num(d.Reserve, d.Reserve > 0 && g.ReserveTimeout > 0),
			MaxDB: num(d.MaxDB, d.MaxDB > 0), Open: "-", Active: "-", Waiting: "-"}
		if d.PoolSize <= 0 {
			r.Pool = "no limit"
		}
		if p.Console != nil {
			open, active, waiting := 0, 0, 0
			for _, s := range p.Console.Pools {
				if s.Database == d.Name {
					open, active, waiting = open+s.Servers(), active+s.SvActive, waiting+s.ClWaiting
				}
			}
			r.Open, r.Active, r.Waiting = strconv.Itoa(open), strconv.Itoa(active), strconv.Itoa(waiting)
		}
		out = append(out, r)
	}
	return out
}

func num(n int, ok bool) string {
	if !ok {
		return "-"
	}
	return strconv.Itoa(n)
}

// SettingsText names the global settings that decide PgBouncer's server
// connections, each with where it came from: "pool_mode transaction
// (pgbouncer.ini:12)", "reserve_pool_size 0 (default)".
func (p *Pooler) SettingsText() []string {
	c := p.PgBouncer
	if c == nil {
		return nil
	}
	out := []string{p.settingText("pool_mode", c.PoolMode)}
	for _, v := range []struct {
		name string
		v    Value
	}{{"default_pool_size", c.DefaultPoolSize}, {"min_pool_size", c.MinPoolSize}, {"reserve_pool_size", c.ReservePoolSize},
		{"max_db_connections", c.MaxDBConnections}, {"max_user_connections", c.MaxUserConnections}, {"max_client_conn", c.MaxClientConn}} {
		out = append(out, p.settingText(v.name, Setting{S: strconv.Itoa(v.v.N), From: v.v.From}))
	}
	return append(out, p.settingText("reserve_pool_timeout", c.ReservePoolTimeout), p.settingText("server_idle_timeout", c.ServerIdleTimeout),
		p.settingText("server_lifetime", c.ServerLifetime))
}

// settingText is "name value (source)", with the running value when the
// console says another (the files changed since the last RELOAD).
func (p *Pooler) settingText(name string, s Setting) string {
	t := fmt.Sprintf("%s %s (%s)", name, s.S, s.From)
	if p.Console == nil {
		return t
	}
	if run, ok := p.Console.Config[name]; ok && !sameNumber(run, s.S) {
		t += fmt.Sprintf(", running %s (SHOW CONFIG: the files changed since the last RELOAD)", run)
	}
	return t
}

// sameNumber compares "3" and "3.0", "transaction" and "transaction".
func sameNumber(a, b string) bool {
	fa, ea := strconv.ParseFloat(a, 64)
	fb, eb := strconv.ParseFloat(b, 64)
	if ea == nil && eb == nil {
		return fa == fb
	}
	return a == b
}
