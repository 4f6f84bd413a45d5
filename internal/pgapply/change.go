package pgapply

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
)

// Change kinds.
const (
	KindRole   = "role"   // ALTER ROLE name SET parameter
	KindSystem = "system" // ALTER SYSTEM SET parameter (postgresql.auto.conf)
	KindFile   = "file"   // written to conf.d by apply: only reloaded and checked
)

// Change is one value to set.
type Change struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Role string `json:"role,omitempty"`
	// Old is the value before (the role's own, or postgresql.auto.conf's);
	// nil when it was not set there (undone with RESET).
	Old *string `json:"old,omitempty"`
	New string  `json:"new"`
	// Reset undoes a value that was not set: RESET instead of SET New.
	Reset bool `json:"reset,omitempty"`
	// Context is pg_settings.context ("user", "sighup", "postmaster").
	Context string `json:"context,omitempty"`
	Done    bool   `json:"done"`
	// Got is what the server showed after the reload.
	Got string `json:"got,omitempty"`
}

// String: `ALTER ROLE "report" SET work_mem: unset -> 64MB`.
func (c Change) String() string {
	old, nw := "unset", c.New
	if c.Old != nil {
		old = *c.Old
	}
	if c.Reset {
		nw = "unset"
	}
	switch c.Kind {
	case KindRole:
		return fmt.Sprintf("ALTER ROLE %s SET %s: %s -> %s", QuoteIdent(c.Role), c.Name, old, nw)
	case KindSystem:
		return fmt.Sprintf("ALTER SYSTEM SET %s: %s -> %s", c.Name, old, nw)
	}
	return fmt.Sprintf("%s = %s (conf.d, written by apply)", c.Name, c.New)
}

// setSQL is the statement that sets the new value.
func (c Change) setSQL() string {
	if c.Reset {
		return c.sql(nil)
	}
	return c.sql(&c.New)
}

// undo is the change that restores the old value.
func (c Change) undo() Change {
	u := Change{Kind: c.Kind, Name: c.Name, Role: c.Role, Context: c.Context}
	if c.Old == nil {
		u.Reset = true
	} else {
		u.New = *c.Old
	}
	if !c.Reset {
		v := c.New
		u.Old = &v
	}
	return u
}

// Noop reports whether the value is already the one asked for.
func (c Change) Noop() bool {
	if c.Kind == KindFile {
		return false
	}
	if c.Reset {
		return c.Old == nil
	}
	return c.Old != nil && sameValue(*c.Old, c.New, "")
}

func (c Change) sql(v *string) string {
	switch c.Kind {
	case KindRole:
		if v == nil {
			return "ALTER ROLE " + QuoteIdent(c.Role) + " RESET " + c.Name
		}
		return "ALTER ROLE " + QuoteIdent(c.Role) + " SET " + c.Name + " = " + QuoteLiteral(*v)
	case KindSystem:
		if v == nil {
			return "ALTER SYSTEM RESET " + c.Name
		}
		return "ALTER SYSTEM SET " + c.Name + " = " + QuoteLiteral(*v)
	}
	return ""
}

// serverSettings are the server settings pgapply sets (what dbmem plans:
// memory); roleSettings those it sets per role. A plan file can come from
// anywhere: anything else (a library to preload, a command to run, a file
// to write) is refused.
var (
	serverSettings = map[string]bool{"work_mem": true, "hash_mem_multiplier": true, "maintenance_work_mem": true,
		"autovacuum_work_mem": true, "max_parallel_workers": true, "max_parallel_workers_per_gather": true,
		"max_parallel_maintenance_workers": true, "temp_buffers": true, "jit": true, "max_connections": true,
		"shared_buffers": true, "huge_pages": true, "huge_page_size": true, "shared_memory_type": true,
		"logical_decoding_work_mem": true, "wal_buffers": true, "max_worker_processes": true,
		"max_locks_per_transaction": true, "log_temp_files": true}
	roleSettings = map[string]bool{"work_mem": true, "hash_mem_multiplier": true, "maintenance_work_mem": true,
		"temp_buffers": true, "jit": true}
)

// Changes turns settings into changes: TargetPostgresRole settings into
// ALTER ROLE, TargetPostgres ones into ALTER SYSTEM (system) or a check of
// the conf.d file apply writes (file). Names, roles and values are checked.
func Changes(settings []finding.Setting, system bool) ([]Change, error) {
	var out []Change
	for _, s := range settings {
		c := Change{Name: s.Name, New: s.Value, Role: s.Role}
		switch s.Target {
		case finding.TargetPostgresRole:
			c.Kind = KindRole
			if err := CheckRole(s.Role); err != nil {
				return nil, err
			}
			if !roleSettings[s.Name] {
				return nil, fmt.Errorf("ALTER ROLE ... SET %s: not a memory setting dbmem sets per role", s.Name)
			}
		case finding.TargetPostgres:
			c.Kind = KindFile
			if system {
				c.Kind = KindSystem
			}
			if !serverSettings[s.Name] {
				return nil, fmt.Errorf("%s: not a memory setting dbmem plans", s.Name)
			}
		default:
			continue
		}
		if err := CheckName(s.Name); err != nil {
			return nil, err
		}
		if err := CheckValue(s.Value); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// nameList is a SQL list of quoted names: ('work_mem', 'jit').
func nameList(cs []Change) string {
	seen := map[string]bool{}
	var q []string
	for _, c := range cs {
		if !seen[c.Name] {
			seen[c.Name] = true
			q = append(q, QuoteLiteral(c.Name))
		}
	}
	return "(" + strings.Join(q, ", ") + ")"
}
