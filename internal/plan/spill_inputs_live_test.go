package plan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

const logRole = `o'hara "ü" x`

func gapsText(r advise.PlanResult) string {
	var s []string
	for _, g := range r.Budget.Gaps {
		s = append(s, g.What+": "+g.Why)
	}
	return strings.Join(s, "\n")
}

// currentLog is pg_current_logfile(), absolute.
func currentLog(t *testing.T, c *pgcluster.Cluster, conn *pgx.Conn) string {
	t.Helper()
	var p string
	if err := conn.QueryRow(context.Background(), "SELECT pg_current_logfile()").Scan(&p); err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.DataDir, p)
	}
	return p
}

// TestVersionsSpillInputs: on every version, the log's temporary file
// lines in csvlog or jsonlog name the role (a quote, a space, Unicode);
// pg_stat_statements absent is said with how to add it; after the log
// rotates the spill is no longer seen and that is said; a log the
// server's account cannot read is said.
func TestVersionsSpillInputs(t *testing.T) {
	pgtest.ForEachVersion(t, 13, func(t *testing.T, v pgtest.Version) {
		dest := "csvlog"
		if v.Major >= 15 && v.Major%2 == 1 {
			dest = "jsonlog"
		}
		c := pgtest.Start(t, map[string]string{"logging_collector": "on", "log_directory": "log", "log_destination": dest,
			"log_temp_files": "0", "work_mem": "1MB", "max_connections": "20"})
		pgtest.Exec(t, c, `SET work_mem = '256MB'`, `CREATE ROLE `+pgx.Identifier{logRole}.Sanitize()+` LOGIN`,
			`CREATE TABLE big AS SELECT g AS id, md5(g::text) AS t FROM generate_series(1, 300000) g`, `GRANT SELECT ON big TO PUBLIC`)
		conn := roleConn(t, c, logRole)
		if _, err := conn.Exec(context.Background(), `SELECT * FROM big ORDER BY t OFFSET 299999`); err != nil {
			t.Fatal(err)
		}
		r := budgetOf(t, c)
		sp, _ := role(r.Budget, logRole)
		if !strings.Contains(strings.Join(sp.SpillSource, " "), "server log") || !strings.Contains(strings.Join(sp.SpillSource, " "), map[string]string{"csvlog": "csv", "jsonlog": "json"}[dest]) {
			t.Errorf("%s: role %+v; gaps:\n%s", dest, sp, gapsText(r))
		}
		if g := gapsText(r); !strings.Contains(g, "pg_stat_statements: not installed") {
			t.Errorf("pg_stat_statements absent not said:\n%s", g)
		}
		admin := pgtest.Connect(t, c)
		waitNewLog(t, c, admin, currentLog(t, c, admin))
		r = budgetOf(t, c)
		if sp, _ := role(r.Budget, logRole); sp.SpillBytes != 0 || !strings.Contains(gapsText(r), "a log rotated since") {
			t.Errorf("after rotation: %+v\n%s", sp, gapsText(r))
		}
		if err := os.Chmod(currentLog(t, c, admin), 0); err != nil {
			t.Fatal(err)
		}
		if r = budgetOf(t, c); !strings.Contains(gapsText(r), "permission denied") {
			t.Errorf("unreadable log not said:\n%s", gapsText(r))
		}
	})
}

// waitNewLog rotates the log until the server logs to another file (a
// rotation within the second the file was opened keeps its name), at most
// 2 minutes.
func waitNewLog(t *testing.T, c *pgcluster.Cluster, conn *pgx.Conn, old string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		if _, err := conn.Exec(context.Background(), "SELECT pg_rotate_logfile()"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
		if currentLog(t, c, conn) != old {
			return
		}
	}
	ents, _ := os.ReadDir(filepath.Join(c.DataDir, "log"))
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	cur, _ := os.ReadFile(filepath.Join(c.DataDir, "current_logfiles"))
	t.Fatalf("the log did not rotate from %s: %v, current_logfiles %q", old, names, cur)
}
