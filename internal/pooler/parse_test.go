package pooler

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseINI(t *testing.T) {
	text := "; comment\n  # comment too\n\n[databases]\napp = host=/run/postgresql dbname=app ; not a comment\n" +
		"'odd name' = dbname=x\n\"q\"\"d\" = dbname=y\n%include /etc/pgbouncer/more.ini\n[pgbouncer] pool_mode = session\n" +
		"default_pool_size=20   \r\nbad line here\n[unclosed\n%includex = 1\n"
	got := parseINI(text)
	want := []iniItem{
		{Kind: itemSection, Line: 4, Name: "databases"},
		{Kind: itemPair, Line: 5, Name: "app", Value: "host=/run/postgresql dbname=app ; not a comment"},
		{Kind: itemPair, Line: 6, Name: "odd name", Value: "dbname=x"},
		{Kind: itemPair, Line: 7, Name: `q"d`, Value: "dbname=y"},
		{Kind: itemInclude, Line: 8, Name: "/etc/pgbouncer/more.ini"},
		{Kind: itemSection, Line: 9, Name: "pgbouncer"},
		{Kind: itemPair, Line: 9, Name: "pool_mode", Value: "session"},
		{Kind: itemPair, Line: 10, Name: "default_pool_size", Value: "20"},
		{Kind: itemBad, Line: 11, Value: `no = after the key "bad"`},
		{Kind: itemBad, Line: 12, Value: "a section name without its closing ]"},
		{Kind: itemBad, Line: 13, Value: "not a section, an %include or key = value"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("parseINI (-want +got):\n%s", d)
	}
	if got := parseINI("[a]\nx = 1\x00y = 2\n"); got[len(got)-1].Kind != itemBad || len(got) != 3 {
		t.Errorf("a NUL byte: %+v", got)
	}
}

func TestParseConnString(t *testing.T) {
	got, err := parseConnString("host=/tmp port = 6000 dbname='my ''db''' user=app  pool_size=5")
	if err != nil {
		t.Fatal(err)
	}
	want := []connPair{{"host", "/tmp"}, {"port", "6000"}, {"dbname", "my 'db'"}, {"user", "app"}, {"pool_size", "5"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, bad := range []string{"host", "=x", "host=''", "dbname='open", "a b=c"} {
		if _, err := parseConnString(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestNumbers(t *testing.T) {
	for s, want := range map[string]int{"20": 20, "010": 8, "0x10": 16, "0": 0, "-1": -1, "+5": 5} {
		if n, err := atoi(s); err != nil || n != want {
			t.Errorf("atoi(%q) = %d, %v; want %d", s, n, err, want)
		}
	}
	for _, s := range []string{"", "20MB", "1.5", "08", "++5", "1_0", "99999999999"} {
		if n, err := atoi(s); err == nil {
			t.Errorf("atoi(%q) = %d, want an error (PgBouncer refuses it)", s, n)
		}
	}
	for s, want := range map[string]int{"20": 20, "ten": 0, "20x": 20, " -3": -3} {
		n, note := cAtoi(s)
		if n != want || (note == "") != (s == "20" || s == " -3") {
			t.Errorf("cAtoi(%q) = %d %q, want %d", s, n, note, want)
		}
	}
}

// TestDebianConfig: Debian 12's packaged pgbouncer.ini (1.18) sets only
// paths and auth: every pool number is PgBouncer's default, and said so.
func TestDebianConfig(t *testing.T) {
	b, err := os.ReadFile("testdata/debian12-pgbouncer-1.18.ini")
	if err != nil {
		t.Fatal(err)
	}
	c, probs := parsePgBouncer(itemsOf("/etc/pgbouncer/pgbouncer.ini", string(b)))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if c.DefaultPoolSize != (Value{N: 20, From: "default"}) || c.PoolMode.S != "session" || c.PoolMode.Set() {
		t.Errorf("defaults: %+v %+v", c.DefaultPoolSize, c.PoolMode)
	}
	if c.UnixSocketDir != (Setting{S: "/var/run/postgresql", From: "/etc/pgbouncer/pgbouncer.ini:61"}) || c.ListenPort.N != 6432 ||
		c.AuthType.S != "md5" || len(c.Databases) != 0 {
		t.Errorf("read: %+v %+v %+v %d databases", c.UnixSocketDir, c.ListenPort, c.AuthType, len(c.Databases))
	}
	if strings.Join(c.Unread, ",") != "logfile,pidfile,auth_file" {
		t.Errorf("unread %v", c.Unread)
	}
}

func itemsOf(file, text string) loaded {
	var l loaded
	for _, it := range parseINI(text) {
		l.Items = append(l.Items, located{iniItem: it, File: file})
	}
	return l
}

// TestPgBouncerSections: overrides, forced users, passwords never kept,
// values PgBouncer reads otherwise than they look, and refusals.
func TestPgBouncerSections(t *testing.T) {
	text := "[databases]\napp = host=127.0.0.1 port=5433 dbname=shop user=app password=s3cret pool_size=ten reserve_pool=2\n" +
		"* = host=/run/postgresql\n[users]\nreport = pool_mode=session max_user_connections=4\n[pgbouncer]\npool_mode = Transaction\n" +
		"max_db_connections = 0x20\n"
	c, probs := parsePgBouncer(itemsOf("f.ini", text))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	d := c.Databases[0]
	if d.Host != "127.0.0.1" || d.Port != 5433 || d.DBName != "shop" || d.ForcedUser != "app" || !d.HasPassword ||
		d.PoolSize != (Value{N: 0, From: "f.ini:2"}) || d.ReservePool.N != 2 {
		t.Errorf("database %+v", d)
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], `"ten" is not a whole number: PgBouncer reads it as 0`) {
		t.Errorf("notes %v", c.Notes)
	}
	if c.Autodb == nil || c.Autodb.Host != "/run/postgresql" || c.PoolMode.S != "transaction" || c.MaxDBConnections.N != 32 {
		t.Errorf("autodb %+v mode %+v max_db %+v", c.Autodb, c.PoolMode, c.MaxDBConnections)
	}
	if u := c.Users[0]; u.Name != "report" || u.PoolMode != "session" || u.MaxUserConnections.N != 4 {
		t.Errorf("user %+v", u)
	}
	if strings.Contains(strings.Join(c.Unread, " ")+strings.Join(c.Notes, " "), "s3cret") {
		t.Error("a password was kept")
	}
	for _, bad := range []string{"[databases]\npgbouncer = dbname=x\n", "[databases]\na = hots=x\n", "[pgbouncer]\npool_mode = fast\n",
		"x = 1\n", "[general]\n", "[pgbouncer]\ndefault_pool_size = 20MB\n", "[users]\nu = pool_size=1 color=red\n"} {
		if _, probs := parsePgBouncer(itemsOf("f.ini", bad)); len(probs) != 1 || !strings.Contains(probs[0].What, "PgBouncer stops loading here") {
			t.Errorf("%q: problems %v", bad, probs)
		}
	}
}

// TestPgCatConfig: pgcat's own example configuration (postgresml/pgcat
// pgcat.toml at 5b038813): two pools, their users and shards.
func TestPgCatConfig(t *testing.T) {
	b, err := os.ReadFile("testdata/pgcat-5b038813.toml")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := parseTOML(string(b))
	if err != nil {
		t.Fatal(err)
	}
	c, probs := parsePgCat("pgcat.toml", keys)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if len(c.Pools) != 2 || c.Pools[0].Name != "sharded_db" || c.Pools[1].Name != "simple_db" {
		t.Fatalf("pools %+v", c.Pools)
	}
	sh := c.Pools[0]
	if len(sh.Users) != 2 || sh.Users[0].Username != "sharding_user" || sh.Users[0].PoolSize.N != 9 || sh.Users[1].PoolSize.N != 21 ||
		len(sh.Shards) != 3 || len(sh.Shards[2].Servers) != 2 || sh.Shards[2].Servers[1] != (PgCatServer{"localhost", 5432, "replica"}) {
		t.Errorf("sharded_db %+v", sh)
	}
	l := ServerConnections([]*Pooler{{Kind: PgCat, PID: 7, PgCat: &c}}, Target{Port: 5432, ListenAddresses: []string{"*"}})
	// sharded_db: (9 + 21) x 6 server entries; simple_db: 5 x 2.
	if !l.Known || l.Max != 190 || l.ByMode["transaction"] != 180 || l.ByMode["session"] != 10 {
		t.Errorf("limit %d known %v %v: %s %v", l.Max, l.Known, l.ByMode, l.Formula, l.Gaps)
	}
}

// TestOdysseyConfig: Odyssey's example (yandex/odyssey odyssey.conf at
// 89c48ea2): one remote storage on three hosts, a default route with
// pool_size 0 (no limit) and a watchdog route of 10.
func TestOdysseyConfig(t *testing.T) {
	b, err := os.ReadFile("testdata/odyssey-89c48ea2.conf")
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := parseOdyssey("odyssey.conf", string(b))
	if err != nil {
		t.Fatal(err)
	}
	c, probs := interpretOdyssey(nodes)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if len(c.Storages) != 1 || c.Storages[0].Host != "[localhost]:5432,host1,[192.168.1.1]:5433" || len(c.Routes) != 2 {
		t.Fatalf("config %+v", c)
	}
	l := ServerConnections([]*Pooler{{Kind: Odyssey, PID: 8, Odyssey: &c}}, Target{Port: 5432, ListenAddresses: []string{"localhost"}})
	if l.Known || l.Max != 10 || len(l.Gaps) != 1 || !strings.Contains(l.Gaps[0], "default/default: pool_size 0 is no limit") {
		t.Errorf("limit %d known %v: %s gaps %q", l.Max, l.Known, l.Formula, l.Gaps)
	}
}
