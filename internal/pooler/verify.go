package pooler

import (
	"fmt"
	"strings"
)

// Verify checks that the running PgBouncer holds every change: SHOW CONFIG
// for [pgbouncer] keys, SHOW DATABASES for a database's.
func Verify(con *Console, changes []Change) error {
	if con == nil {
		return fmt.Errorf("the console was not read after RELOAD: the values are not verified")
	}
	var bad []string
	for _, c := range changes {
		if got, ok := running(con, c); !ok {
			bad = append(bad, fmt.Sprintf("%s: PgBouncer runs with %s", c, got))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("after RELOAD, %s (PgBouncer refused or did not reread the file: see its log)", strings.Join(bad, "; "))
	}
	return nil
}

// running reads a change's value back from the console.
func running(con *Console, c Change) (string, bool) {
	want := fmt.Sprint(c.Value)
	if c.Database == "" {
		got, ok := con.Config[c.Key]
		return orMissing(got, ok), ok && sameNumber(got, want)
	}
	for _, d := range con.Databases {
		if d.Name != c.Database {
			continue
		}
		got := map[string]int{"pool_size": d.PoolSize, "min_pool_size": d.MinPoolSize, "reserve_pool": d.ReservePool,
			"max_db_connections": d.MaxConnections}[c.Key]
		if c.Key == "max_db_connections" && c.Value == 0 {
			return fmt.Sprint(got), fmt.Sprint(got) == con.Config["max_db_connections"] // 0: the global value applies
		}
		return fmt.Sprint(got), got == c.Value
	}
	return "no such database", false
}

func orMissing(s string, ok bool) string {
	if !ok {
		return "no such setting"
	}
	return s
}
