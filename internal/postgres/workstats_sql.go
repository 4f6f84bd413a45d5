package postgres

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// querier is what readWork needs of a connection.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func (w *WorkStats) readSettings(ctx context.Context, conn querier) {
	var lt int64
	err := conn.QueryRow(ctx, `SELECT current_setting('block_size')::int8, setting::int8 FROM pg_settings WHERE name = 'log_temp_files'`).Scan(&w.BlockSize, &lt)
	if err != nil {
		w.gap("log_temp_files", shortPgError(err), "")
		w.BlockSize = 8192
		return
	}
	w.LogTempFiles = &lt
}

func (w *WorkStats) readRoles(ctx context.Context, conn querier) {
	rows, err := conn.Query(ctx, `SELECT rolname::text FROM pg_roles ORDER BY rolname LIMIT $1`, maxRoles)
	if err == nil {
		w.Roles, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		w.gap("role names", shortPgError(err), "")
	}
	rows, err = conn.Query(ctx, `SELECT coalesce(r.rolname::text, ''), coalesce(d.datname::text, ''), coalesce(s.setconfig, '{}')
		FROM pg_db_role_setting s LEFT JOIN pg_roles r ON r.oid = s.setrole LEFT JOIN pg_database d ON d.oid = s.setdatabase
		WHERE s.setrole <> 0 LIMIT $1`, maxRoles)
	if err == nil {
		w.RoleSettings, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (RoleSetting, error) {
			var rs RoleSetting
			return rs, r.Scan(&rs.Role, &rs.Database, &rs.Settings)
		})
	}
	if err != nil {
		w.gap("pg_db_role_setting", shortPgError(err), "")
	}
}

func (w *WorkStats) readDatabases(ctx context.Context, conn querier) {
	rows, err := conn.Query(ctx, `SELECT datname::text, temp_files, temp_bytes, coalesce(stats_reset::text, '')
		FROM pg_stat_database WHERE datname IS NOT NULL ORDER BY datname LIMIT $1`, maxRoles)
	if err == nil {
		w.Databases, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (DatabaseTemp, error) {
			var d DatabaseTemp
			return d, r.Scan(&d.Name, &d.TempFiles, &d.TempBytes, &d.Reset)
		})
	}
	if err != nil {
		w.gap("pg_stat_database", shortPgError(err), "")
	}
}

// readStatements sums pg_stat_statements per role, without reading the
// query texts (pg_stat_statements(false)).
func (w *WorkStats) readStatements(ctx context.Context, conn querier, l Live) {
	var schema string
	err := conn.QueryRow(ctx, `SELECT n.nspname::text FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_stat_statements'`).Scan(&schema)
	if errors.Is(err, pgx.ErrNoRows) {
		w.noStatements(l)
		return
	}
	if err != nil {
		w.gap("pg_stat_statements", shortPgError(err), "")
		return
	}
	fn := pgx.Identifier{schema, "pg_stat_statements"}.Sanitize()
	jit := "-1::int8"
	if l.Major >= 15 {
		jit = "sum(s.jit_functions)::int8"
	}
	rows, err := conn.Query(ctx, `SELECT coalesce(r.rolname::text, ''), count(*), sum(s.calls)::int8, sum(s.temp_blks_written)::int8,
		coalesce(max(s.temp_blks_written::float8 / greatest(s.calls, 1)), 0), `+jit+`
		FROM `+fn+`(false) s LEFT JOIN pg_roles r ON r.oid = s.userid GROUP BY 1 ORDER BY 1 LIMIT $1`, maxRoles)
	st := &StatementStats{Schema: schema}
	if err == nil {
		st.Roles, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (StatementRole, error) {
			var x StatementRole
			return x, r.Scan(&x.Role, &x.Queries, &x.Calls, &x.TempBlksWritten, &x.MaxBlksPerCall, &x.JITFunctions)
		})
	}
	if err != nil {
		w.gap("pg_stat_statements", shortPgError(err), statementsFix(err))
		return
	}
	for _, r := range st.Roles {
		st.Entries += r.Queries
	}
	if l.Major >= 14 {
		info := pgx.Identifier{schema, "pg_stat_statements_info"}.Sanitize()
		if err := conn.QueryRow(ctx, `SELECT coalesce(stats_reset::text, '') FROM `+info).Scan(&st.Reset); err != nil {
			w.gap("pg_stat_statements_info", shortPgError(err), "")
		}
	}
	w.Statements = st
}

// noStatements says why pg_stat_statements is not there and how to add it.
func (w *WorkStats) noStatements(l Live) {
	if strings.Contains(l.Settings.String("shared_preload_libraries"), "pg_stat_statements") {
		w.gap("pg_stat_statements", "preloaded, but the extension is not created in the database dbmem connected to",
			"CREATE EXTENSION pg_stat_statements (in that database; --pg-database chooses another)")
		return
	}
	w.gap("pg_stat_statements", "not installed: spills per role come from the server log alone",
		"shared_preload_libraries = 'pg_stat_statements' (restart), then CREATE EXTENSION pg_stat_statements")
}

func statementsFix(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && strings.Contains(pe.Message, "shared_preload_libraries") {
		return "shared_preload_libraries = 'pg_stat_statements' and a restart"
	}
	return ""
}

// readLogFiles asks where the server logs now (logging_collector on).
func (w *WorkStats) readLogFiles(ctx context.Context, conn querier, major int) {
	formats := []string{"stderr", "csvlog"}
	if major >= 15 {
		formats = append(formats, "jsonlog")
	}
	for _, f := range formats {
		var p *string
		if err := conn.QueryRow(ctx, `SELECT pg_current_logfile($1)`, f).Scan(&p); err != nil {
			w.gap("pg_current_logfile", shortPgError(err), "GRANT pg_monitor to the role dbmem connects as, or connect as a superuser")
			return
		}
		if p != nil && *p != "" {
			if w.LogFiles == nil {
				w.LogFiles = map[string]string{}
			}
			w.LogFiles[f] = *p
		}
	}
}
