package pooler

import (
	"fmt"
	"strings"
)

// dbKeys are the [databases] keys PgBouncer 1.18-1.25 accepts that do not
// decide server connections (read past, never kept: some are secrets).
var dbKeys = map[string]bool{"auth_user": true, "auth_dbname": true, "client_encoding": true, "datestyle": true,
	"timezone": true, "connect_query": true, "application_name": true, "auth_query": true, "query_wait_timeout": true,
	"max_db_client_connections": true, "server_lifetime": true, "load_balance_hosts": true}

// addDatabase reads one [databases] line: name = connection string.
func (c *PgBouncerConfig) addDatabase(name, connstr, from string) error {
	if name == "pgbouncer" {
		return fmt.Errorf("database name %q is reserved for the admin console", name)
	}
	pairs, err := parseConnString(connstr)
	if err != nil {
		return fmt.Errorf("[databases] %s: %w", name, err)
	}
	d := Database{Name: name, Port: 5432, DBName: name, From: from}
	for _, p := range pairs {
		if err := c.setDatabaseKey(&d, p, from); err != nil {
			return fmt.Errorf("[databases] %s: %w", name, err)
		}
	}
	if name == "*" {
		c.Autodb = &d
		return nil
	}
	for i := range c.Databases {
		if c.Databases[i].Name == name { // a later line replaces an earlier one
			c.Databases[i] = d
			return nil
		}
	}
	c.Databases = append(c.Databases, d)
	return nil
}

// setDatabaseKey sets one key=value of a [databases] line.
func (c *PgBouncerConfig) setDatabaseKey(d *Database, p connPair, from string) error {
	num := func(v *Value) {
		n, note := cAtoi(p.Value)
		*v = Value{N: n, From: from}
		if note != "" {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: [databases] %s %s %s", from, d.Name, p.Key, note))
		}
	}
	switch p.Key {
	case "dbname":
		d.DBName = p.Value
	case "host":
		d.Host = p.Value
	case "port":
		n, _ := cAtoi(p.Value)
		if n == 0 {
			return fmt.Errorf("invalid port %q", p.Value)
		}
		d.Port = n
	case "user":
		d.ForcedUser = p.Value
	case "password":
		d.HasPassword = true // the value is never kept
	case "pool_size":
		num(&d.PoolSize)
	case "min_pool_size":
		num(&d.MinPoolSize)
	case "reserve_pool", "reserve_pool_size":
		num(&d.ReservePool)
	case "max_db_connections":
		num(&d.MaxDBConnections)
	case "pool_mode":
		if !poolModes[strings.ToLower(p.Value)] {
			return fmt.Errorf("pool_mode %q is not session, transaction or statement", p.Value)
		}
		d.PoolMode = strings.ToLower(p.Value)
	default:
		if !dbKeys[p.Key] {
			return fmt.Errorf("unrecognized connection parameter %q", p.Key)
		}
	}
	return nil
}

// addUser reads one [users] line: name = settings.
func (c *PgBouncerConfig) addUser(name, settings, from string) error {
	pairs, err := parseConnString(settings)
	if err != nil {
		return fmt.Errorf("[users] %s: %w", name, err)
	}
	u := UserLimit{Name: name, From: from}
	for _, p := range pairs {
		n, note := cAtoi(p.Value)
		v := Value{N: n, From: from}
		switch p.Key {
		case "pool_mode":
			if !poolModes[strings.ToLower(p.Value)] {
				return fmt.Errorf("[users] %s: pool_mode %q is not session, transaction or statement", name, p.Value)
			}
			u.PoolMode, note = strings.ToLower(p.Value), ""
		case "pool_size":
			u.PoolSize = v
		case "reserve_pool_size":
			u.ReservePoolSize = v
		case "max_user_connections":
			u.MaxUserConnections = v
		case "transaction_timeout", "idle_transaction_timeout", "query_timeout", "query_wait_timeout",
			"client_idle_timeout", "max_user_client_connections":
			note = ""
		default:
			return fmt.Errorf("[users] %s: unrecognized user parameter %q", name, p.Key)
		}
		if note != "" {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: [users] %s %s %s", from, name, p.Key, note))
		}
	}
	for i := range c.Users {
		if c.Users[i].Name == name {
			c.Users[i] = u
			return nil
		}
	}
	c.Users = append(c.Users, u)
	return nil
}
