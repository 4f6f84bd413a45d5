package unitname

import "testing"

func TestPostgres(t *testing.T) {
	for _, c := range [][3]string{
		{"/etc/postgresql/15/main/postgresql.conf", "/srv/pg", "postgresql@15-main.service"},
		{"", "/var/lib/postgresql/16/main", "postgresql@16-main.service"},
		{"", "/var/lib/pgsql/18/data", "postgresql-18.service"},
		{"", "/var/lib/pgsql/data", "postgresql.service"},
		{"", "/data", ""},
	} {
		got, packaged := PostgresPackaged(c[0], c[1])
		if !packaged {
			got = ""
		}
		if got != c[2] {
			t.Errorf("%v: %s", c, got)
		}
	}
}
