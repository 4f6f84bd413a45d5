package pooler

import (
	"strings"
	"testing"
)

func TestParseChange(t *testing.T) {
	for arg, want := range map[string]Change{
		"default_pool_size=15":          {Key: "default_pool_size", Value: 15},
		"shop.max_db_connections = 25 ": {Database: "shop", Key: "max_db_connections", Value: 25},
		"app.reserve_pool=0":            {Database: "app", Key: "reserve_pool", Value: 0},
	} {
		if got, err := ParseChange(arg); err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", arg, got, err, want)
		}
	}
	for _, bad := range []string{"pool_mode=1", "auth_file=1", "shop.host=1", "shop.password=1", "default_pool_size=-1",
		"default_pool_size=ten", "default_pool_size", "default_pool_size=999999"} {
		if c, err := ParseChange(bad); err == nil {
			t.Errorf("%q: accepted as %+v", bad, c)
		}
	}
}

// TestEdits: the line that sets a key is rewritten in place (the last one,
// which PgBouncer keeps), the rest of a connection string stays byte for
// byte (its password too), a key set nowhere gets a line after
// [pgbouncer], CRLF stays.
func TestEdits(t *testing.T) {
	main := "[databases]\r\nshop = host=/run/postgresql password='p w''d' pool_size=20 dbname=shop\r\n" +
		"app = dbname=app\r\n[pgbouncer] default_pool_size = 20\r\ndefault_pool_size=25\r\n%include /x/inc.ini\r\n"
	inc := "max_db_connections = 40\n"
	l := loaded{Items: append(itemsOf("/x/main.ini", main).Items[:6], itemsOf("/x/inc.ini", inc).Items...)}
	edits, err := placeChanges(l, []Change{{Database: "shop", Key: "pool_size", Value: 12}, {Database: "app", Key: "max_db_connections", Value: 5},
		{Key: "default_pool_size", Value: 10}, {Key: "min_pool_size", Value: 2}, {Key: "max_db_connections", Value: 30}})
	if err != nil {
		t.Fatal(err)
	}
	var mainEdits, incEdits []edit
	for _, e := range edits {
		if e.File == "/x/inc.ini" {
			incEdits = append(incEdits, e)
		} else {
			mainEdits = append(mainEdits, e)
		}
	}
	got, err := applyEdits(main, mainEdits)
	if err != nil {
		t.Fatal(err)
	}
	want := "[databases]\r\nshop = host=/run/postgresql password='p w''d' pool_size=12 dbname=shop\r\n" +
		"app = dbname=app max_db_connections=5\r\n[pgbouncer] default_pool_size = 20\r\nmin_pool_size = 2\r\ndefault_pool_size= 10\r\n%include /x/inc.ini\r\n"
	if got != want {
		t.Errorf("main:\n%q\nwant\n%q", got, want)
	}
	if got, _ := applyEdits(inc, incEdits); got != "max_db_connections = 30\n" {
		t.Errorf("include: %q", got)
	}
	if _, err := placeChanges(l, []Change{{Database: "nope", Key: "pool_size", Value: 1}}); err == nil || !strings.Contains(err.Error(), `no [databases] entry "nope"`) {
		t.Errorf("a missing database: %v", err)
	}
}
