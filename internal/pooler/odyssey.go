package pooler

import (
	"fmt"
	"strconv"
)

// OdysseyConfig is what decides Odyssey's server connections: each route
// (a database and user pair, or "default" for any) has its own pool of at
// most pool_size server connections (0: no limit) to its storage.
type OdysseyConfig struct {
	Storages []OdysseyStorage `json:"storages"`
	Routes   []OdysseyRoute   `json:"routes"`
}

// OdysseyStorage is one storage "name" { ... } block.
type OdysseyStorage struct {
	Name string `json:"name"`
	Type string `json:"type"` // "remote", or "local" (the console)
	// Host is as written: "h1,h2", "[host]:port,...", or "" for a unix
	// socket in unix_socket_dir.
	Host string `json:"host,omitempty"`
	Port Value  `json:"port"`
	From string `json:"from"`
}

// OdysseyRoute is one database/user route (or a storage's watchdog).
type OdysseyRoute struct {
	Database    string `json:"database"` // "default": any database
	User        string `json:"user"`     // "default": any user
	Storage     string `json:"storage"`
	Pool        string `json:"pool"`
	PoolSize    Value  `json:"pool_size"`
	MinPoolSize Value  `json:"min_pool_size"`
	From        string `json:"from"`
}

// interpretOdyssey reads the storages and routes of the statement tree.
func interpretOdyssey(nodes []odNode) (OdysseyConfig, []Problem) {
	var c OdysseyConfig
	var probs []Problem
	for _, n := range nodes {
		switch n.Key {
		case "storage":
			st, wd, p := odStorage(n)
			c.Storages = append(c.Storages, st)
			c.Routes = append(c.Routes, wd...)
			probs = append(probs, p...)
		case "database":
			for _, u := range n.Children {
				if u.Key != "user" {
					continue
				}
				r, p := odRoute(u, arg(n, 0), arg(u, 0))
				c.Routes = append(c.Routes, r)
				probs = append(probs, p...)
			}
		}
	}
	return c, probs
}

// arg is a statement's i-th value ("" when it has none).
func arg(n odNode, i int) string {
	if i < len(n.Args) {
		return n.Args[i]
	}
	return ""
}

func odStorage(n odNode) (OdysseyStorage, []OdysseyRoute, []Problem) {
	st := OdysseyStorage{Name: arg(n, 0), Port: Value{N: 5432, From: "default"}, From: fmt.Sprintf("%s:%d", n.File, n.Line)}
	var wd []OdysseyRoute
	var probs []Problem
	for _, k := range n.Children {
		switch k.Key {
		case "type":
			st.Type = arg(k, 0)
		case "host":
			st.Host = arg(k, 0)
		case "port":
			v, err := odNumber(k)
			if err != nil {
				probs = append(probs, Problem{File: k.File, Line: k.Line, What: err.Error()})
			}
			st.Port = v
		case "watchdog":
			r, p := odRoute(k, "watchdog", "watchdog")
			wd, probs = append(wd, r), append(probs, p...)
		}
	}
	return st, wd, probs
}

// odRoute reads a user { ... } (or watchdog { ... }) block.
func odRoute(n odNode, db, user string) (OdysseyRoute, []Problem) {
	r := OdysseyRoute{Database: db, User: user, PoolSize: Value{N: 0, From: "default"},
		MinPoolSize: Value{N: 0, From: "default"}, From: fmt.Sprintf("%s:%d", n.File, n.Line)}
	var probs []Problem
	for _, k := range n.Children {
		var err error
		switch k.Key {
		case "storage":
			r.Storage = arg(k, 0)
		case "pool":
			r.Pool = arg(k, 0)
		case "pool_size":
			r.PoolSize, err = odNumber(k)
		case "min_pool_size":
			r.MinPoolSize, err = odNumber(k)
		}
		if err != nil {
			probs = append(probs, Problem{File: k.File, Line: k.Line, What: err.Error()})
		}
	}
	return r, probs
}

func odNumber(k odNode) (Value, error) {
	n, err := strconv.Atoi(arg(k, 0))
	if err != nil || n < 0 {
		return Value{}, fmt.Errorf("%s %q is not a count", k.Key, clip(arg(k, 0)))
	}
	return Value{N: n, From: fmt.Sprintf("%s:%d", k.File, k.Line)}, nil
}
