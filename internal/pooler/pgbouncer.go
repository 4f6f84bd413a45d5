package pooler

import (
	"fmt"
	"strconv"
	"strings"
)

// Value is one number of a pooler's configuration and where it came from:
// a file and line, the console (SHOW CONFIG), or the pooler's built-in
// default when nothing set it. A default is never shown as a value read.
type Value struct {
	N int `json:"n"`
	// From is "FILE:LINE", "SHOW CONFIG", "SHOW DATABASES", or "default".
	From string `json:"from"`
}

// Set reports whether the value was read, not a default.
func (v Value) Set() bool { return v.From != "" && v.From != "default" }

func (v Value) String() string {
	if v.From == "" {
		return "unknown"
	}
	return fmt.Sprintf("%d (%s)", v.N, v.From)
}

// PgBouncerConfig is what decides PgBouncer's server connections.
type PgBouncerConfig struct {
	PoolMode           Setting `json:"pool_mode"`
	DefaultPoolSize    Value   `json:"default_pool_size"`
	MinPoolSize        Value   `json:"min_pool_size"`
	ReservePoolSize    Value   `json:"reserve_pool_size"`
	ReservePoolTimeout Setting `json:"reserve_pool_timeout"`
	MaxClientConn      Value   `json:"max_client_conn"`
	MaxDBConnections   Value   `json:"max_db_connections"`
	MaxUserConnections Value   `json:"max_user_connections"`
	ServerLifetime     Setting `json:"server_lifetime"`
	ServerIdleTimeout  Setting `json:"server_idle_timeout"`
	ListenPort         Value   `json:"listen_port"`
	UnixSocketDir      Setting `json:"unix_socket_dir"`
	ListenAddr         Setting `json:"listen_addr"`
	AuthType           Setting `json:"auth_type"`
	AdminUsers         Setting `json:"admin_users"`
	StatsUsers         Setting `json:"stats_users"`
	// Databases are the [databases] entries; Autodb is the "*" fallback.
	Databases []Database  `json:"databases"`
	Autodb    *Database   `json:"autodb,omitempty"`
	Users     []UserLimit `json:"users,omitempty"`
	// Unread are the settings present but not read by dbmem (they do not
	// decide server connections); kept by name only.
	Unread []string `json:"unread,omitempty"`
	// Notes are values PgBouncer accepts but reads otherwise than they
	// look ("pool_size=ten" is 0 to it: no limit).
	Notes []string `json:"notes,omitempty"`
}

// Setting is a textual setting and where it came from (see Value).
type Setting struct {
	S    string `json:"s"`
	From string `json:"from"`
}

// Set reports whether the setting was read, not a default.
func (s Setting) Set() bool { return s.From != "" && s.From != "default" }

// Database is one [databases] entry: where its pools connect, and its
// overrides (a Value with From "" is not overridden).
type Database struct {
	Name   string `json:"name"`
	Host   string `json:"host,omitempty"` // "" = a unix socket in unix_socket_dir
	Port   int    `json:"port"`
	DBName string `json:"dbname"`
	// ForcedUser: user= is set, so all clients share one pool per
	// database (the name is kept; a password never is).
	ForcedUser       string `json:"forced_user,omitempty"`
	HasPassword      bool   `json:"has_password,omitempty"`
	PoolSize         Value  `json:"pool_size"`
	MinPoolSize      Value  `json:"min_pool_size"`
	ReservePool      Value  `json:"reserve_pool"`
	MaxDBConnections Value  `json:"max_db_connections"`
	PoolMode         string `json:"pool_mode,omitempty"`
	From             string `json:"from"` // FILE:LINE
}

// UserLimit is one [users] entry.
type UserLimit struct {
	Name               string `json:"name"`
	PoolMode           string `json:"pool_mode,omitempty"`
	PoolSize           Value  `json:"pool_size"`
	ReservePoolSize    Value  `json:"reserve_pool_size"`
	MaxUserConnections Value  `json:"max_user_connections"`
	From               string `json:"from"`
}

// pgbouncerDefaults are PgBouncer's built-in defaults (1.18 to 1.25,
// src/main.c bouncer_params).
func pgbouncerDefaults() PgBouncerConfig {
	d := func(n int) Value { return Value{N: n, From: "default"} }
	s := func(v string) Setting { return Setting{S: v, From: "default"} }
	return PgBouncerConfig{
		PoolMode: s("session"), DefaultPoolSize: d(20), MinPoolSize: d(0), ReservePoolSize: d(0),
		ReservePoolTimeout: s("5"), MaxClientConn: d(100), MaxDBConnections: d(0), MaxUserConnections: d(0),
		ServerLifetime: s("3600"), ServerIdleTimeout: s("600"), ListenPort: d(6432), UnixSocketDir: s("/tmp"),
		ListenAddr: s(""), AuthType: s("md5"), AdminUsers: s(""), StatsUsers: s(""),
	}
}

// poolModes are the words PgBouncer accepts for pool_mode.
var poolModes = map[string]bool{"session": true, "transaction": true, "statement": true}

// parsePgBouncer interprets a loaded pgbouncer.ini. Problems are lines
// PgBouncer would refuse (it stops loading at them).
func parsePgBouncer(l loaded) (PgBouncerConfig, []Problem) {
	c := pgbouncerDefaults()
	var probs []Problem
	section := ""
	for _, it := range l.Items {
		from := fmt.Sprintf("%s:%d", it.File, it.Line)
		if it.Kind == itemSection {
			section = it.Name
			if section != "pgbouncer" && section != "databases" && section != "users" && section != "peers" {
				probs = append(probs, Problem{File: it.File, Line: it.Line, What: fmt.Sprintf("unknown section [%s]: PgBouncer stops loading here", it.Name)})
				return c, probs
			}
			continue
		}
		var err error
		switch section {
		case "":
			err = fmt.Errorf("a setting before any section")
		case "pgbouncer":
			err = c.setGlobal(it.Name, it.Value, from)
		case "databases":
			err = c.addDatabase(it.Name, it.Value, from)
		case "users":
			err = c.addUser(it.Name, it.Value, from)
		}
		if err != nil {
			probs = append(probs, Problem{File: it.File, Line: it.Line, What: err.Error() + ": PgBouncer stops loading here"})
			return c, probs
		}
	}
	return c, probs
}

// setGlobal sets one [pgbouncer] key; the keys that do not decide server
// connections are kept by name in Unread (their values may be secrets).
func (c *PgBouncerConfig) setGlobal(key, val, from string) error {
	num := map[string]*Value{"default_pool_size": &c.DefaultPoolSize, "min_pool_size": &c.MinPoolSize,
		"reserve_pool_size": &c.ReservePoolSize, "max_client_conn": &c.MaxClientConn, "max_db_connections": &c.MaxDBConnections,
		"max_user_connections": &c.MaxUserConnections, "listen_port": &c.ListenPort}
	str := map[string]*Setting{"reserve_pool_timeout": &c.ReservePoolTimeout, "server_lifetime": &c.ServerLifetime,
		"server_idle_timeout": &c.ServerIdleTimeout, "unix_socket_dir": &c.UnixSocketDir, "listen_addr": &c.ListenAddr,
		"auth_type": &c.AuthType, "admin_users": &c.AdminUsers, "stats_users": &c.StatsUsers}
	switch {
	case key == "pool_mode":
		if !poolModes[strings.ToLower(val)] {
			return fmt.Errorf("pool_mode %q is not session, transaction or statement", val)
		}
		c.PoolMode = Setting{S: strings.ToLower(val), From: from}
	case num[key] != nil:
		n, err := atoi(val)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		*num[key] = Value{N: n, From: from}
	case str[key] != nil:
		*str[key] = Setting{S: val, From: from}
	default:
		c.Unread = append(c.Unread, key)
	}
	return nil
}

// atoi reads a number as PgBouncer's CF_INT does: strtol with base 0
// over the whole string, so "010" is 8 and "0x10" is 16; anything else
// (a unit, a fraction, nothing) makes PgBouncer refuse the file.
func atoi(s string) (int, error) {
	t := strings.TrimLeft(s, " \t")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg, t = t[0] == '-', t[1:]
	}
	base := 10
	switch {
	case len(t) > 2 && (t[:2] == "0x" || t[:2] == "0X"):
		base, t = 16, t[2:]
	case len(t) > 1 && t[0] == '0':
		base, t = 8, t[1:]
	}
	n, err := strconv.ParseInt(t, base, 32)
	if err != nil || strings.ContainsAny(t, "_+-") {
		return 0, fmt.Errorf("%q is not a whole number", s)
	}
	if neg {
		n = -n
	}
	return int(n), nil
}

// cAtoi reads a number as C's atoi does, which PgBouncer uses for the
// numbers of [databases] and [users] lines: leading digits, the rest
// ignored, 0 when there are none. note says what was ignored.
func cAtoi(s string) (n int, note string) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg, t = t[0] == '-', t[1:]
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' && n < 1<<30 {
		n = n*10 + int(t[i]-'0')
		i++
	}
	if neg {
		n = -n
	}
	if i < len(t) || i == 0 {
		note = fmt.Sprintf("%q is not a whole number: PgBouncer reads it as %d", s, n)
	}
	return n, note
}
