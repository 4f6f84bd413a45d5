package plan

import (
	"context"
	"fmt"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/measure"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// Role names as a user may create them: a quote, a space, Unicode, "@".
const (
	spillRole = `report "user" ü`
	quietRole = `oltp@app`
)

// spillCluster starts a cluster where spillRole sorts a table much larger
// than work_mem (1MB) and quietRole runs small queries, with
// pg_stat_statements preloaded and log_temp_files = 0, and returns it with
// an open connection of each role (so each has a backend).
func spillCluster(t *testing.T, extra map[string]string) *pgcluster.Cluster {
	t.Helper()
	settings := map[string]string{"shared_preload_libraries": "pg_stat_statements", "log_temp_files": "0",
		"work_mem": "1MB", "max_connections": "20", "log_line_prefix": "%m [%p] %q%u@%d "}
	for k, v := range extra {
		settings[k] = v
	}
	c := pgtest.Start(t, settings)
	// The setup's generate_series would spill at 1MB: it runs with more,
	// so only spillRole's sorts spill.
	pgtest.Exec(t, c, `SET work_mem = '256MB'`, `CREATE EXTENSION pg_stat_statements`,
		`CREATE ROLE `+pgx.Identifier{spillRole}.Sanitize()+` LOGIN`, `CREATE ROLE `+pgx.Identifier{quietRole}.Sanitize()+` LOGIN`,
		`CREATE TABLE big AS SELECT g AS id, md5(g::text) AS t FROM generate_series(1, 400000) g`,
		`GRANT SELECT ON big TO PUBLIC`)
	spill := roleConn(t, c, spillRole)
	quiet := roleConn(t, c, quietRole)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := spill.Exec(ctx, `SELECT * FROM big ORDER BY t OFFSET 399999`); err != nil {
			t.Fatal(err)
		}
		if _, err := quiet.Exec(ctx, `SELECT t FROM big WHERE id = $1`, i+1); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func roleConn(t *testing.T, c *pgcluster.Cluster, role string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d dbname=postgres", c.SocketDir, c.Port))
	if err != nil {
		t.Fatal(err)
	}
	cfg.User = role
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect as %q: %v", role, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// budgetOf plans the running cluster c and returns the plan.
func budgetOf(t *testing.T, c *pgcluster.Cluster) advise.PlanResult {
	t.Helper()
	o := snapshot.Options{FS: linux.DefaultFS(), Method: measure.Smaps,
		Live: postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Port: c.Port, Work: true}}}
	s, err := snapshot.Take(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	in, err := Build(context.Background(), Request{Snapshot: s, Port: c.Port, FS: linux.DefaultFS(), NodesPerQuery: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := advise.Plan(in)
	if r.Budget == nil {
		t.Fatalf("no budget; notes %q", r.Notes)
	}
	return r
}

func role(r *budget.Result, name string) (budget.Role, bool) {
	for _, x := range r.Roles {
		if x.Name == name {
			return x, true
		}
	}
	return budget.Role{}, false
}

// TestVersionsBudgetRaisesOnlyTheSpillingRole: on every version, the role
// whose sorts spill gets a work_mem of its own, sized from its spills and
// within the budget; the role that does not spill gets none; the plan's
// settings hold one ALTER ROLE, for the spilling role, its name as given.
func TestVersionsBudgetRaisesOnlyTheSpillingRole(t *testing.T) {
	pgtest.ForEachVersion(t, 13, func(t *testing.T, v pgtest.Version) {
		c := spillCluster(t, nil)
		r := budgetOf(t, c)
		b := r.Budget
		spill, ok := role(b, spillRole)
		if !ok || spill.SpillBytes < 4<<20 || spill.Proposed == "" {
			t.Fatalf("spilling role: %+v (found %v); gaps %+v", spill, ok, b.Gaps)
		}
		sources := strings.Join(spill.SpillSource, "; ")
		for _, want := range []string{"pg_stat_statements", "server log"} {
			if !strings.Contains(sources, want) {
				t.Errorf("spill sources %q do not name %s", sources, want)
			}
		}
		if quiet, ok := role(b, quietRole); !ok || quiet.Proposed != "" || quiet.SpillBytes != 0 {
			t.Errorf("quiet role: %+v (found %v)", quiet, ok)
		}
		var alter []finding.Setting
		for _, s := range r.Settings {
			if s.Target == finding.TargetPostgresRole {
				alter = append(alter, s)
			}
		}
		if len(alter) != 1 || alter[0].Role != spillRole || alter[0].Name != "work_mem" || alter[0].Value != spill.Proposed {
			t.Errorf("role settings %+v, want one work_mem for %q", alter, spillRole)
		}
		if !b.Fits || b.TotalBytes > b.LimitBytes || !b.Measured || b.Concurrency < 1 {
			t.Errorf("budget %s of %s, fits %v, measured %v, concurrency %d", fmt.Sprint(b.TotalBytes), fmt.Sprint(b.LimitBytes), b.Fits, b.Measured, b.Concurrency)
		}
		// Version specifics: hash_mem_multiplier 1.0 before 15, io workers on 18.
		hm, _ := b.Setting("hash_mem_multiplier")
		if want := map[bool]string{true: "1.0", false: "2.0"}[v.Major < 15]; hm.Value != want || v.Major < 15 && !strings.Contains(hm.Formula, "13-14") {
			t.Errorf("PostgreSQL %d: hash_mem_multiplier %s (%s)", v.Major, hm.Value, hm.Formula)
		}
		if base := b.Lines[0]; (v.Major >= 18) != strings.Contains(base.Formula, "3 io workers") {
			t.Errorf("PostgreSQL %d: baseline %s", v.Major, base.Formula)
		}
		// pg_stat_statements reset: its spills are gone, the log's stay.
		pgtest.Exec(t, c, "SELECT pg_stat_statements_reset()")
		spill, _ = role(budgetOf(t, c).Budget, spillRole)
		sources = strings.Join(spill.SpillSource, "; ")
		if strings.Contains(sources, "pg_stat_statements") || !strings.Contains(sources, "server log") || spill.Proposed == "" {
			t.Errorf("after pg_stat_statements_reset: %+v", spill)
		}
	})
}
