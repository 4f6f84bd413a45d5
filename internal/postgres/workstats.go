package postgres

import (
	"context"
	"strings"
)

// WorkStats is what the memory budget reads over SQL: where queries spill
// (pg_stat_statements per role, pg_stat_database), the roles' own
// settings (pg_db_role_setting), the role names (to read %u in the log)
// and where the server logs. What could not be read is a gap, never an
// error: the rest still counts.
type WorkStats struct {
	// BlockSize is the server's block size (temp_blks_written's unit).
	BlockSize int64 `json:"block_size"`
	// LogTempFiles is log_temp_files in kB (-1: off); nil when unread.
	LogTempFiles *int64 `json:"log_temp_files,omitempty"`
	// Statements is pg_stat_statements per role; nil when not readable
	// (Gaps says why).
	Statements *StatementStats `json:"statements,omitempty"`
	Databases  []DatabaseTemp  `json:"databases,omitempty"`
	// RoleSettings are ALTER ROLE ... SET values.
	RoleSettings []RoleSetting `json:"role_settings,omitempty"`
	// Roles are the role names (at most maxRoles).
	Roles []string `json:"roles,omitempty"`
	// LogFiles maps a log format ("stderr", "csvlog", "jsonlog") to the
	// file the server writes now (pg_current_logfile), relative to the
	// data directory or absolute.
	LogFiles map[string]string `json:"log_files,omitempty"`
	Gaps     []WorkGap         `json:"gaps,omitempty"`
}

// StatementStats is pg_stat_statements, summed per role.
type StatementStats struct {
	Schema  string          `json:"schema"`
	Reset   string          `json:"reset,omitempty"` // pg_stat_statements_info.stats_reset (14+)
	Entries int64           `json:"entries"`
	Roles   []StatementRole `json:"roles"`
}

// StatementRole is one role's statements.
type StatementRole struct {
	Role    string `json:"role"`
	Queries int64  `json:"queries"`
	Calls   int64  `json:"calls"`
	// TempBlksWritten is their sum; MaxBlksPerCall the largest average of
	// one statement (temp_blks_written / calls).
	TempBlksWritten int64   `json:"temp_blks_written"`
	MaxBlksPerCall  float64 `json:"max_blks_per_call"`
	// JITFunctions is the functions JIT compiled for it (15+; -1 unknown).
	JITFunctions int64 `json:"jit_functions"`
}

// DatabaseTemp is pg_stat_database's temporary files of one database.
type DatabaseTemp struct {
	Name      string `json:"name"`
	TempFiles int64  `json:"temp_files"`
	TempBytes int64  `json:"temp_bytes"`
	Reset     string `json:"reset,omitempty"`
}

// RoleSetting is one row of pg_db_role_setting: a role's settings (for
// one database, or all when Database is "").
type RoleSetting struct {
	Role     string   `json:"role"`
	Database string   `json:"database,omitempty"`
	Settings []string `json:"settings"`
}

// WorkGap is what could not be read and how to make it readable.
type WorkGap struct {
	What string `json:"what"`
	Why  string `json:"why"`
	Fix  string `json:"fix,omitempty"`
}

// maxRoles bounds the role names and settings read.
const maxRoles = 10000

func (w *WorkStats) gap(what, why, fix string) {
	w.Gaps = append(w.Gaps, WorkGap{What: what, Why: why, Fix: fix})
}

// RoleWorkMem is the work_mem a role has for every database ("" none).
func (w *WorkStats) RoleWorkMem(role string) string {
	if w == nil {
		return ""
	}
	for _, rs := range w.RoleSettings {
		if rs.Role != role || rs.Database != "" {
			continue
		}
		for _, kv := range rs.Settings {
			if v, ok := strings.CutPrefix(kv, "work_mem="); ok {
				return v
			}
		}
	}
	return ""
}

// readWork reads the WorkStats over conn; it never fails.
func readWork(ctx context.Context, conn querier, l Live) *WorkStats {
	w := &WorkStats{}
	w.readSettings(ctx, conn)
	w.readRoles(ctx, conn)
	w.readDatabases(ctx, conn)
	w.readStatements(ctx, conn, l)
	w.readLogFiles(ctx, conn, l.Major)
	return w
}
