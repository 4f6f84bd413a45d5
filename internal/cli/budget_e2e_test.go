package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

const (
	e2eSpillRole = `report "user" ü`
	e2eQuietRole = `oltp app`
)

// e2eSpillCluster: e2eSpillRole sorts a table much larger than work_mem
// (1MB), e2eQuietRole does not; pg_stat_statements preloaded,
// log_temp_files = 0; each keeps a connection open.
func e2eSpillCluster(t *testing.T) *pgcluster.Cluster {
	t.Helper()
	c := pgtest.Start(t, map[string]string{"shared_preload_libraries": "pg_stat_statements", "log_temp_files": "0",
		"work_mem": "1MB", "max_connections": "20", "log_line_prefix": "%m [%p] %q%u@%d "})
	pgtest.Exec(t, c, `SET work_mem = '256MB'`, `CREATE EXTENSION pg_stat_statements`,
		`CREATE ROLE `+pgx.Identifier{e2eSpillRole}.Sanitize()+` LOGIN`, `CREATE ROLE `+pgx.Identifier{e2eQuietRole}.Sanitize()+` LOGIN`,
		`CREATE TABLE big AS SELECT g AS id, md5(g::text) AS t FROM generate_series(1, 400000) g`, `GRANT SELECT ON big TO PUBLIC`)
	ctx := context.Background()
	for _, r := range []struct{ role, sql string }{{e2eSpillRole, `SELECT * FROM big ORDER BY t OFFSET 399999`}, {e2eQuietRole, `SELECT t FROM big WHERE id = 7`}} {
		cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d dbname=postgres", c.SocketDir, c.Port))
		if err != nil {
			t.Fatal(err)
		}
		cfg.User = r.role
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		if _, err := conn.Exec(ctx, r.sql); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// roleWorkMem is a role's own work_mem ("" none), read as postgres.
func roleWorkMem(t *testing.T, c *pgcluster.Cluster, role string) string {
	t.Helper()
	var v string
	err := pgtest.Connect(t, c).QueryRow(context.Background(), `SELECT coalesce((SELECT x FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole,
		unnest(s.setconfig) x WHERE r.rolname = $1 AND x LIKE 'work_mem=%'), '')`, role).Scan(&v)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(v, "work_mem=")
}

// TestBudgetPlanApplyRollback: as root (through dbmem's helper as
// postgres), `dbmem plan` gives only the spilling role a work_mem of its
// own; `dbmem apply --alter-system` sets it with ALTER ROLE, reloads and
// reads it back; `dbmem rollback --postgres` removes it.
func TestBudgetPlanApplyRollback(t *testing.T) {
	binaries(t)
	c := e2eSpillCluster(t)
	env := []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	port := strconv.Itoa(c.Port)
	code, out, errs := runAs(t, nil, env, "plan", "--pg-port", port, "--json")
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, errs)
	}
	var res advise.PlanResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Budget == nil {
		t.Fatalf("plan JSON: %v, budget %v\n%s", err, res.Budget, out)
	}
	var pg []finding.Setting
	for _, s := range res.Settings {
		if s.Target == finding.TargetPostgresRole {
			pg = append(pg, s)
		}
	}
	if len(pg) != 1 || pg[0].Role != e2eSpillRole {
		t.Fatalf("role settings %+v, want one for %q", pg, e2eSpillRole)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "plan.json")
	b, _ := json.Marshal(pg)
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(dir, "journal")
	code, out, errs = runAs(t, nil, env, "apply", "--plan", file, "--pg-port", port, "--alter-system", "--yes", "--journal-dir", journal)
	if code != 0 || !strings.Contains(out, "ALTER ROLE") {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errs)
	}
	if got := roleWorkMem(t, c, e2eSpillRole); got != pg[0].Value {
		t.Errorf("after apply the spilling role has work_mem %q, want %q", got, pg[0].Value)
	}
	if got := roleWorkMem(t, c, e2eQuietRole); got != "" {
		t.Errorf("the quiet role has work_mem %q", got)
	}
	code, out, errs = runAs(t, nil, env, "rollback", "--postgres", "--pg-port", port, "--yes", "--journal-dir", journal)
	if code != 0 {
		t.Fatalf("rollback: exit %d\n%s\n%s", code, out, errs)
	}
	if got := roleWorkMem(t, c, e2eSpillRole); got != "" {
		t.Errorf("after rollback the spilling role has work_mem %q", got)
	}
	// rollback --list shows both runs over SQL, the apply undone by the rollback.
	code, out, errs = runAs(t, nil, env, "rollback", "--list", "--journal-dir", journal)
	want := regexp.MustCompile(`(?m)^PostgreSQL runs over SQL \(rollback --postgres\):\n(\S+)  apply    done, undone by (\S+) on .*\n    ` +
		regexp.QuoteMeta(e2eSpillRole+".work_mem="+pg[0].Value) + `.*\n(\S+)  rollback done, undoes (\S+) on `)
	m := want.FindStringSubmatch(out)
	if code != 0 || m == nil || m[2] != m[3] || m[1] != m[4] {
		t.Errorf("rollback --list: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestApplyConfDReloadsAndRollbackReloads: `apply --postgres` writes the
// budget's server settings to the instance's conf.d, reloads it and reads
// them back from a new session; `rollback` restores the file and reloads,
// and the old value is back.
func TestApplyConfDReloadsAndRollbackReloads(t *testing.T) {
	binaries(t)
	c := pgtest.Create(t, map[string]string{"include_dir": "conf.d"})
	confd := filepath.Join(c.DataDir, "conf.d")
	if err := os.Mkdir(confd, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(file, []byte(`[{"target": "postgresql", "name": "work_mem", "value": "7MB"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	port, journal := strconv.Itoa(c.Port), filepath.Join(dir, "journal")
	show := func() string { // a new session each time: it reads the configuration as reloaded
		conn, err := c.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var v string
		if err := conn.QueryRow(ctx, "SHOW work_mem").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	code, out, errs := runAs(t, nil, env, "apply", "--plan", file, "--pg-port", port, "--postgres", "--yes", "--journal-dir", journal)
	if code != 0 || !strings.Contains(out, "server shows 7168kB") {
		t.Fatalf("apply --postgres: exit %d\n%s\n%s", code, out, errs)
	}
	if got := show(); got != "7MB" {
		t.Errorf("after apply, a new session shows work_mem %s", got)
	}
	code, out, errs = runAs(t, nil, env, "rollback", "--yes", "--journal-dir", journal)
	if code != 0 || !strings.Contains(out, "reloaded") {
		t.Fatalf("rollback: exit %d\n%s\n%s", code, out, errs)
	}
	// The reload is asynchronous: new sessions get the old value once the
	// postmaster has reread its files.
	got := show()
	for deadline := time.Now().Add(2 * time.Minute); got != "4MB" && time.Now().Before(deadline); got = show() {
		time.Sleep(100 * time.Millisecond)
	}
	if got != "4MB" {
		t.Errorf("after rollback work_mem %s, want the default 4MB", got)
	}
}
