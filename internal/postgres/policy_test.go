package postgres

import (
	"strings"
	"testing"

	"github.com/jackc/pgpassfile"
)

// TestPasswordRules: which require_auth and sslmode each kind of attempt
// gets, and which ~/.pgpass lines a query may use.
func TestPasswordRules(t *testing.T) {
	pw := secret{"x", "PGPASSWORD"}
	for _, c := range []struct {
		d          dialSpec
		allowClear bool
		want       string
	}{
		{dialSpec{}, false, "none"},
		{dialSpec{password: pw}, false, "!password"},
		{dialSpec{password: pw}, true, ""},
		{dialSpec{target: target{tcp: true}, password: pw}, false, ""},
		{dialSpec{target: target{tcp: true}}, false, "none"},
	} {
		if got := requireAuthFor(c.d, c.allowClear); got != c.want {
			t.Errorf("%+v clear=%v: require_auth %q, want %q", c.d, c.allowClear, got, c.want)
		}
	}
	env := func(mode string) func(string) string { return func(string) string { return mode } }
	for _, c := range []struct {
		env       string
		pw, clear bool
		want      string
	}{
		{"", true, false, "require"}, {"prefer", true, false, "require"}, {"disable", true, false, "require"},
		{"verify-full", true, false, "verify-full"}, {"", false, false, "prefer"}, {"disable", true, true, "disable"},
	} {
		if got := sslModeFor(env(c.env), c.pw, c.clear); got != c.want {
			t.Errorf("PGSSLMODE=%q password=%v clear=%v: %q, want %q", c.env, c.pw, c.clear, got, c.want)
		}
	}
	pf, err := pgpassfile.ParsePassfile(strings.NewReader("*:*:*:*:wild\nlocalhost:5433:*:*:local\ndb1:5432:*:bob:tcp\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q    passwordQuery
		want string
	}{
		{passwordQuery{host: "localhost", port: 5433, database: "postgres", user: "x"}, "wild"},
		{passwordQuery{host: "db1", port: 5432, database: "postgres", user: "bob", bound: true}, "tcp"},
		{passwordQuery{host: "db2", port: 5432, database: "postgres", user: "bob", bound: true}, ""},
		{passwordQuery{host: "localhost", port: 5433, database: "postgres", user: "x", bound: true}, "local"},
	} {
		if got, _ := matchPassfile(pf, "pgpass", c.q); got.value != c.want {
			t.Errorf("%+v: %q, want %q", c.q, got.value, c.want)
		}
	}
}
