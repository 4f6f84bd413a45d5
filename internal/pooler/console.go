package pooler

import (
	"fmt"
	"strconv"
	"strings"
)

// Console is what PgBouncer's admin console answered: measured pools and
// the databases and settings the running process holds (which may differ
// from the files until the next RELOAD).
type Console struct {
	// As is the console user and how it was reached.
	As        string        `json:"as"`
	Version   string        `json:"version,omitempty"`
	Pools     []PoolStat    `json:"pools"`
	Databases []DatabaseRow `json:"databases"`
	// Config holds the SHOW CONFIG values dbmem uses (configKeys).
	Config map[string]string `json:"config,omitempty"`
}

// PoolStat is one SHOW POOLS row: a (database, user) pool.
type PoolStat struct {
	Database  string `json:"database"`
	User      string `json:"user"`
	ClActive  int    `json:"cl_active"`
	ClWaiting int    `json:"cl_waiting"`
	SvActive  int    `json:"sv_active"`
	SvIdle    int    `json:"sv_idle"`
	SvUsed    int    `json:"sv_used"`
	SvTested  int    `json:"sv_tested"`
	SvLogin   int    `json:"sv_login"`
	// SvActiveCancel and SvBeingCanceled (1.16+) are server connections too.
	SvActiveCancel  int    `json:"sv_active_cancel,omitempty"`
	SvBeingCanceled int    `json:"sv_being_canceled,omitempty"`
	MaxWaitSeconds  int    `json:"maxwait"`
	PoolMode        string `json:"pool_mode"`
}

// Servers is every server connection the pool holds open: each is a
// backend of the PostgreSQL it points at.
func (p PoolStat) Servers() int {
	return p.SvActive + p.SvIdle + p.SvUsed + p.SvTested + p.SvLogin + p.SvActiveCancel + p.SvBeingCanceled
}

// DatabaseRow is one SHOW DATABASES row.
type DatabaseRow struct {
	Name               string `json:"name"`
	Host               string `json:"host"`
	Port               int    `json:"port"`
	DBName             string `json:"database"`
	ForceUser          string `json:"force_user,omitempty"`
	PoolSize           int    `json:"pool_size"`
	MinPoolSize        int    `json:"min_pool_size"`
	ReservePool        int    `json:"reserve_pool"`
	PoolMode           string `json:"pool_mode,omitempty"` // "" = the default
	MaxConnections     int    `json:"max_connections"`
	CurrentConnections int    `json:"current_connections"`
}

// configKeys are the SHOW CONFIG values dbmem keeps (never auth_* or
// anything that may hold a secret).
var configKeys = map[string]bool{"pool_mode": true, "default_pool_size": true, "min_pool_size": true,
	"reserve_pool_size": true, "reserve_pool_timeout": true, "max_client_conn": true, "max_db_connections": true,
	"max_user_connections": true, "server_lifetime": true, "server_idle_timeout": true, "listen_port": true,
	"unix_socket_dir": true}

// table is a console answer: column names and rows of text (nil = NULL).
type table struct {
	Cols []string
	Rows [][]*string
}

// col finds a column by name (-1 when the version has no such column).
func (t table) col(name string) int {
	for i, c := range t.Cols {
		if c == name {
			return i
		}
	}
	return -1
}

// cell reads a text column of row r ("" for NULL or a missing column).
func (t table) cell(r int, name string) string {
	i := t.col(name)
	if i < 0 || i >= len(t.Rows[r]) || t.Rows[r][i] == nil {
		return ""
	}
	return *t.Rows[r][i]
}

// num reads a count; a value that is not one is an error naming it.
func (t table) num(r int, name string, required bool) (int, error) {
	return t.number(r, name, required, false)
}

// number reads a whole number; negative only where neg allows (a pool
// size PgBouncer shows as set, where 0 or less means no limit).
func (t table) number(r int, name string, required, neg bool) (int, error) {
	s := t.cell(r, name)
	if s == "" {
		if required {
			return 0, fmt.Errorf("row %d: no %s", r+1, name)
		}
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 && !neg {
		return 0, fmt.Errorf("row %d: %s is %q, not a count", r+1, name, clip(s))
	}
	return n, nil
}

// parsePools reads SHOW POOLS by column name (columns differ by version).
func parsePools(t table) ([]PoolStat, error) {
	if t.col("database") < 0 || t.col("sv_active") < 0 {
		return nil, fmt.Errorf("SHOW POOLS: no database or sv_active column (columns %s)", clip(strings.Join(t.Cols, ",")))
	}
	out := make([]PoolStat, 0, len(t.Rows))
	for r := range t.Rows {
		p := PoolStat{Database: t.cell(r, "database"), User: t.cell(r, "user"), PoolMode: t.cell(r, "pool_mode")}
		fields := []struct {
			name string
			to   *int
			req  bool
		}{{"cl_active", &p.ClActive, true}, {"cl_waiting", &p.ClWaiting, true}, {"sv_active", &p.SvActive, true},
			{"sv_idle", &p.SvIdle, true}, {"sv_used", &p.SvUsed, true}, {"sv_tested", &p.SvTested, true},
			{"sv_login", &p.SvLogin, true}, {"maxwait", &p.MaxWaitSeconds, false},
			{"sv_active_cancel", &p.SvActiveCancel, false}, {"sv_being_canceled", &p.SvBeingCanceled, false}}
		for _, f := range fields {
			n, err := t.num(r, f.name, f.req)
			if err != nil {
				return nil, fmt.Errorf("SHOW POOLS: %w", err)
			}
			*f.to = n
		}
		out = append(out, p)
	}
	return out, nil
}

// parseDatabases reads SHOW DATABASES by column name.
func parseDatabases(t table) ([]DatabaseRow, error) {
	if t.col("name") < 0 || t.col("pool_size") < 0 {
		return nil, fmt.Errorf("SHOW DATABASES: no name or pool_size column (columns %s)", clip(strings.Join(t.Cols, ",")))
	}
	out := make([]DatabaseRow, 0, len(t.Rows))
	for r := range t.Rows {
		d := DatabaseRow{Name: t.cell(r, "name"), Host: t.cell(r, "host"), DBName: t.cell(r, "database"),
			ForceUser: t.cell(r, "force_user"), PoolMode: t.cell(r, "pool_mode")}
		fields := []struct {
			name string
			to   *int
		}{{"port", &d.Port}, {"pool_size", &d.PoolSize}, {"min_pool_size", &d.MinPoolSize}, {"reserve_pool", &d.ReservePool},
			{"max_connections", &d.MaxConnections}, {"current_connections", &d.CurrentConnections}}
		for _, f := range fields {
			n, err := t.number(r, f.name, false, true)
			if err != nil {
				return nil, fmt.Errorf("SHOW DATABASES: %w", err)
			}
			*f.to = n
		}
		if d.ReservePool == 0 && t.col("reserve_pool") < 0 {
			d.ReservePool, _ = t.num(r, "reserve_pool_size", false) // 1.24+ spelling
		}
		out = append(out, d)
	}
	return out, nil
}

// parseConfig keeps the SHOW CONFIG values dbmem uses.
func parseConfig(t table) (map[string]string, error) {
	if t.col("key") < 0 || t.col("value") < 0 {
		return nil, fmt.Errorf("SHOW CONFIG: no key or value column (columns %s)", clip(strings.Join(t.Cols, ",")))
	}
	out := map[string]string{}
	for r := range t.Rows {
		if k := t.cell(r, "key"); configKeys[k] {
			out[k] = t.cell(r, "value")
		}
	}
	return out, nil
}
