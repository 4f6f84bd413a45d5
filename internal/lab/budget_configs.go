package lab

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/budget"
)

// smallConfig is PostgreSQL's defaults with one small work_mem for every
// role: the temp-bytes baseline, and the run dbmem measures.
func (r *budgetRun) smallConfig() *ConfigRun {
	return &ConfigRun{Name: ConfigSmall, Settings: []NamedValue{{"work_mem", r.cfg.SmallWorkMem}},
		Source: "PostgreSQL's defaults, work_mem " + r.cfg.SmallWorkMem + " for every role; dbmem measures its budget during this run"}
}

// dbmemConfig is the budget's settings and its ALTER ROLE lines.
func (r *budgetRun) dbmemConfig() *ConfigRun {
	b := r.res.Budget
	c := &ConfigRun{Name: ConfigDBMem, Source: "dbmem plan's budget (internal/plan Measure, internal/budget) measured during the " + ConfigSmall + " run"}
	for _, s := range b.Settings {
		c.Settings = append(c.Settings, NamedValue{s.Name, s.Value})
	}
	for _, x := range b.Roles {
		if x.Proposed != "" {
			c.RoleSettings = append(c.RoleSettings, RoleValue{Role: x.Name, Name: "work_mem", Value: x.Proposed})
		}
	}
	total := b.TotalBytes
	c.BudgetBytes = &total
	return c
}

// pgtuneConfig is what PGTune sets for the cgroup's memory, the CPUs,
// max_connections and the mixed profile.
func (r *budgetRun) pgtuneConfig() *ConfigRun {
	p := budget.PGTune(r.cfg.LimitBytes, r.res.Host.CPUs, r.cfg.MaxConnections, r.major, r.cfg.Profile)
	c := &ConfigRun{Name: ConfigPGTune, Source: fmt.Sprintf("PGTune, profile %s, %d max_connections, %d CPUs (%s)", p.Profile, r.cfg.MaxConnections, r.res.Host.CPUs, p.Source)}
	for _, s := range p.Settings {
		c.Settings = append(c.Settings, NamedValue{s.Name, s.Value})
	}
	return c
}

// apply resets what the previous run set, writes this one's settings
// with ALTER SYSTEM and ALTER ROLE, and restarts the server in the cgroup.
func (r *budgetRun) apply(ctx context.Context, cr *ConfigRun) error {
	sqls := []string{"ALTER SYSTEM RESET ALL", "ALTER ROLE " + OLTPRole + " RESET ALL", "ALTER ROLE " + ReportRole + " RESET ALL",
		"ALTER SYSTEM SET log_temp_files = 0"}
	if r.statements {
		sqls = append(sqls, "SELECT pg_stat_statements_reset()")
	}
	for _, s := range cr.Settings {
		if !isSettingName(s.Name) {
			return fmt.Errorf("setting name %q: not a PostgreSQL setting", s.Name)
		}
		sqls = append(sqls, fmt.Sprintf("ALTER SYSTEM SET %s = %s", s.Name, literal(s.Value)))
	}
	for _, s := range cr.RoleSettings {
		sqls = append(sqls, fmt.Sprintf("ALTER ROLE %s SET %s = %s", pgx.Identifier{s.Role}.Sanitize(), s.Name, literal(s.Value)))
	}
	if err := r.c.Exec(ctx, sqls...); err != nil {
		return err
	}
	if err := r.c.Stop(ctx); err != nil {
		return err
	}
	return r.start(ctx)
}

func isSettingName(s string) bool {
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func literal(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// load makes the roles, pgbench's tables for the OLTP role and the fact
// and dimension tables for the reporting role.
func (r *budgetRun) load(ctx context.Context) error {
	if _, err := r.c.Pgbench(ctx, "-i", "-q", "-s", strconv.Itoa(r.cfg.PgbenchScale)); err != nil {
		return err
	}
	c := r.cfg
	sqls := []string{"CREATE ROLE " + OLTPRole + " LOGIN", "CREATE ROLE " + ReportRole + " LOGIN", "SET work_mem = '256MB'",
		fmt.Sprintf("CREATE TABLE dims AS SELECT g AS id, g %% 100 AS grp, md5(g::text) AS name FROM generate_series(1, %d) g", c.DimRows),
		fmt.Sprintf("CREATE TABLE facts AS SELECT g AS id, (hashint4(g) & 2147483647) %% %d + 1 AS dim_id, (g %% 1000)::numeric / 10 AS amount, md5(g::text) AS payload FROM generate_series(1, %d) g",
			c.DimRows, c.FactRows),
		"ANALYZE", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + OLTPRole + ", " + ReportRole}
	if r.statements {
		sqls = append(sqls, "CREATE EXTENSION pg_stat_statements")
	}
	return r.c.Exec(ctx, sqls...)
}
