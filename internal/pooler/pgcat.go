package pooler

import (
	"fmt"
	"sort"
	"strconv"
)

// PgCatConfig is what decides pgcat's server connections: for every pool,
// every user and every server of every shard, a pool of at most
// pool_size connections (src/pool.rs: one bb8 pool per address and user,
// max_size = pool_size).
type PgCatConfig struct {
	Pools []PgCatPool `json:"pools"`
}

// PgCatPool is one [pools.NAME] table.
type PgCatPool struct {
	Name     string       `json:"name"`
	PoolMode Setting      `json:"pool_mode"`
	Users    []PgCatUser  `json:"users"`
	Shards   []PgCatShard `json:"shards"`
}

// PgCatUser is one [pools.NAME.users.N] table (its password never kept).
type PgCatUser struct {
	Username    string `json:"username"`
	PoolSize    Value  `json:"pool_size"`
	MinPoolSize Value  `json:"min_pool_size"`
	PoolMode    string `json:"pool_mode,omitempty"`
}

// PgCatShard is one [pools.NAME.shards.N] table.
type PgCatShard struct {
	Index    string        `json:"index"`
	Database string        `json:"database"`
	Servers  []PgCatServer `json:"servers"`
	Mirrors  int           `json:"mirrors,omitempty"`
}

// PgCatServer is one ["host", port, "role"] of a shard.
type PgCatServer struct {
	Host string `json:"host"`
	Port int    `json:"port"`
	Role string `json:"role"`
}

// parsePgCat interprets a pgcat.toml.
func parsePgCat(file string, keys []tomlKey) (PgCatConfig, []Problem) {
	pools := map[string]*PgCatPool{}
	users := map[[2]string]*PgCatUser{}
	shards := map[[2]string]*PgCatShard{}
	var probs []Problem
	for _, k := range keys {
		if len(k.Table) < 2 || k.Table[0] != "pools" {
			continue
		}
		from := fmt.Sprintf("%s:%d", file, k.Line)
		pool := pools[k.Table[1]]
		if pool == nil {
			pool = &PgCatPool{Name: k.Table[1], PoolMode: Setting{S: "transaction", From: "default"}}
			pools[k.Table[1]] = pool
		}
		var err error
		switch {
		case len(k.Table) == 2 && k.Key == "pool_mode":
			pool.PoolMode, err = pgcatMode(k.Value, from)
		case len(k.Table) == 4 && k.Table[2] == "users":
			err = setPgCatUser(users, k, from)
		case len(k.Table) == 4 && k.Table[2] == "shards":
			err = setPgCatShard(shards, k)
		}
		if err != nil {
			probs = append(probs, Problem{File: file, Line: k.Line, What: err.Error()})
		}
	}
	return assemblePgCat(pools, users, shards), probs
}

func pgcatMode(v tomlValue, from string) (Setting, error) {
	s, ok := v.(string)
	if !ok || !poolModes[s] || s == "statement" {
		return Setting{}, fmt.Errorf("pool_mode %v is not session or transaction", v)
	}
	return Setting{S: s, From: from}, nil
}

func setPgCatUser(users map[[2]string]*PgCatUser, k tomlKey, from string) error {
	id := [2]string{k.Table[1], k.Table[3]}
	u := users[id]
	if u == nil {
		u = &PgCatUser{}
		users[id] = u
	}
	switch k.Key {
	case "username":
		s, ok := k.Value.(string)
		if !ok {
			return fmt.Errorf("username is not a string")
		}
		u.Username = s
	case "pool_size", "min_pool_size":
		n, ok := k.Value.(int64)
		if !ok || n < 0 || n > 1<<31 {
			return fmt.Errorf("%s %v is not a count", k.Key, k.Value)
		}
		v := Value{N: int(n), From: from}
		if k.Key == "pool_size" {
			u.PoolSize = v
		} else {
			u.MinPoolSize = v
		}
	case "pool_mode":
		m, err := pgcatMode(k.Value, from)
		u.PoolMode = m.S
		return err
	}
	return nil
}

func setPgCatShard(shards map[[2]string]*PgCatShard, k tomlKey) error {
	id := [2]string{k.Table[1], k.Table[3]}
	s := shards[id]
	if s == nil {
		s = &PgCatShard{Index: k.Table[3]}
		shards[id] = s
	}
	switch k.Key {
	case "database":
		db, ok := k.Value.(string)
		if !ok {
			return fmt.Errorf("database is not a string")
		}
		s.Database = db
	case "servers":
		list, ok := k.Value.([]any)
		if !ok {
			return fmt.Errorf("servers is not an array")
		}
		for _, e := range list {
			srv, err := pgcatServer(e)
			if err != nil {
				return err
			}
			s.Servers = append(s.Servers, srv)
		}
	case "mirrors":
		if list, ok := k.Value.([]any); ok {
			s.Mirrors = len(list)
		}
	}
	return nil
}

// pgcatServer reads ["host", port, "role"].
func pgcatServer(e any) (PgCatServer, error) {
	t, ok := e.([]any)
	if !ok || len(t) != 3 {
		return PgCatServer{}, fmt.Errorf("a server is not [\"host\", port, \"role\"]")
	}
	host, ok1 := t[0].(string)
	port, ok2 := t[1].(int64)
	role, ok3 := t[2].(string)
	if !ok1 || !ok2 || !ok3 || port <= 0 || port > 65535 {
		return PgCatServer{}, fmt.Errorf("a server is not [\"host\", port, \"role\"]")
	}
	return PgCatServer{Host: host, Port: int(port), Role: role}, nil
}

// assemblePgCat orders pools by name, users and shards by index.
func assemblePgCat(pools map[string]*PgCatPool, users map[[2]string]*PgCatUser, shards map[[2]string]*PgCatShard) PgCatConfig {
	var c PgCatConfig
	for _, id := range sortedIDs(users) {
		pools[id[0]].Users = append(pools[id[0]].Users, *users[id])
	}
	for _, id := range sortedIDs(shards) {
		pools[id[0]].Shards = append(pools[id[0]].Shards, *shards[id])
	}
	for _, p := range pools {
		c.Pools = append(c.Pools, *p)
	}
	sort.Slice(c.Pools, func(i, j int) bool { return c.Pools[i].Name < c.Pools[j].Name })
	return c
}

// sortedIDs orders (pool, index) keys: by pool, then numeric index.
func sortedIDs[T any](m map[[2]string]T) [][2]string {
	ids := make([][2]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if ids[i][0] != ids[j][0] {
			return ids[i][0] < ids[j][0]
		}
		a, _ := strconv.Atoi(ids[i][1])
		b, _ := strconv.Atoi(ids[j][1])
		return a < b || a == b && ids[i][1] < ids[j][1]
	})
	return ids
}
