package pooler

import (
	"os"
	"strings"
	"testing"
)

func seedFile(f *testing.F, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
}

// FuzzPgBouncerINI: any file parses without a panic, every item has a
// line inside the file, and the limit computed from it is never negative
// when known.
func FuzzPgBouncerINI(f *testing.F) {
	seedFile(f, "testdata/debian12-pgbouncer-1.18.ini")
	f.Add("[databases]\napp = host=/tmp port=5432 user=u pool_size=3 reserve_pool=2 max_db_connections=4\n* = host=/tmp\n" +
		"[users]\nu = max_user_connections=2 pool_mode=session\n[pgbouncer]\nreserve_pool_timeout = 1\n%include x\n")
	f.Add("[a][b]]\n'k''' = '\x00\n\"\" = 1\n[databases]\nx = dbname='a''b\n")
	f.Fuzz(func(t *testing.T, text string) {
		lines := strings.Count(text, "\n") + 1
		for _, it := range parseINI(text) {
			if it.Line < 1 || it.Line > lines {
				t.Fatalf("item %+v outside %d lines", it, lines)
			}
		}
		c, _ := parsePgBouncer(itemsOf("f.ini", text))
		l := ServerConnections([]*Pooler{{Kind: PgBouncer, PID: 1, PgBouncer: &c}}, Target{Port: 5432, SocketDirs: []string{"/tmp"}})
		if l.Known && l.Max < 0 {
			t.Fatalf("negative known limit %d: %s", l.Max, l.Formula)
		}
	})
}

func FuzzConnString(f *testing.F) {
	for _, s := range []string{"host=/tmp port = 6000 dbname='my ''db'''", "a", "a=''", "='", "x='y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pairs, err := parseConnString(s)
		for _, p := range pairs {
			if p.Key == "" || p.Value == "" && err == nil {
				t.Fatalf("empty key or value %+v from %q", p, s)
			}
		}
		cAtoi(s)
		atoi(s)
	})
}

// FuzzPgCatTOML: any file parses or fails with a line, never panics.
func FuzzPgCatTOML(f *testing.F) {
	seedFile(f, "testdata/pgcat-5b038813.toml")
	f.Add("[pools.a.users.0]\nusername = \"u\\u00e9\"\npool_size = 5\n[pools.a.shards.0]\nservers = [[\"h\", 5432, \"primary\"],]\n")
	f.Add("a = [[[[[[[[[[1]]]]]]]]]]\nb = '''x'''\nc = {d = 1}\n[[e]]\n")
	f.Fuzz(func(t *testing.T, text string) {
		keys, err := parseTOML(text)
		if err != nil && !strings.HasPrefix(err.Error(), "line ") {
			t.Fatalf("error without a line: %v", err)
		}
		c, _ := parsePgCat("f", keys)
		ServerConnections([]*Pooler{{Kind: PgCat, PID: 1, PgCat: &c}}, Target{Port: 5432})
	})
}

// FuzzOdyssey: any file parses or fails, never panics.
func FuzzOdyssey(f *testing.F) {
	seedFile(f, "testdata/odyssey-89c48ea2.conf")
	f.Add("storage \"s\" { type \"remote\" host \"[::1]:5432\" }\ndatabase \"d\" { user default { storage \"s\" pool_size 3 } }\n")
	f.Add("a { b { c { d { e { f { g { h { i { j { k { l { m { n { o { p { q { r }}}}}}}}}}}}}}}}}\n} \"x")
	f.Fuzz(func(t *testing.T, text string) {
		nodes, _ := parseOdyssey("f", text)
		c, _ := interpretOdyssey(nodes)
		ServerConnections([]*Pooler{{Kind: Odyssey, PID: 1, Odyssey: &c}}, Target{Port: 5432})
	})
}

// FuzzConsole: any answer of a console (a fake pooler writes what it
// likes) is parsed or refused, never trusted into a panic.
func FuzzConsole(f *testing.F) {
	f.Add("database,user,cl_active,cl_waiting,sv_active,sv_idle,sv_used,sv_tested,sv_login,maxwait,pool_mode", "app,u,1,0,1,0,0,0,0,0,transaction")
	f.Add("name,host,port,database,force_user,pool_size,reserve_pool,max_connections", "app,,5432,app,u,-1,2,0")
	f.Add("key,value", "pool_mode,session")
	f.Fuzz(func(t *testing.T, cols, row string) {
		tb := table{Cols: strings.Split(cols, ",")}
		var cells []*string
		for _, c := range strings.Split(row, ",") {
			c := c
			if c == "NULL" {
				cells = append(cells, nil)
				continue
			}
			cells = append(cells, &c)
		}
		tb.Rows = [][]*string{cells, cells[:len(cells)/2]}
		pools, _ := parsePools(tb)
		dbs, _ := parseDatabases(tb)
		cfg, _ := parseConfig(tb)
		c := PgBouncerConfig{}
		p := &Pooler{Kind: PgBouncer, PID: 1, PgBouncer: &c, Console: &Console{Pools: pools, Databases: dbs, Config: cfg}}
		for _, s := range pools {
			if s.Servers() < 0 {
				t.Fatalf("negative count %+v", s)
			}
		}
		ServerConnections([]*Pooler{p}, Target{Port: 5432})
	})
}
