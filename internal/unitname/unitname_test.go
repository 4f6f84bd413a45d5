package unitname

import "testing"

func TestPostgres(t *testing.T) {
	for _, c := range [][3]string{
		{"/etc/postgresql/15/main/postgresql.conf", "/srv/pg", "postgresql@15-main.service"},
		{"", "/var/lib/postgresql/16/main", "postgresql@16-main.service"},
		{"", "/var/lib/pgsql/18/data", "postgresql-18.service"},
		{"", "/data", "postgresql.service"},
	} {
		if got := Postgres(c[0], c[1]); got != c[2] {
			t.Errorf("%v: %s", c, got)
		}
	}
}
