package myapply

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
)

// JournalSchema versions the journal.
const JournalSchema = "dbmem.mysql-apply/v1"

// Journal is one run: what it changed and how it ended ("done",
// "rolled-back", "failed").
type Journal struct {
	Schema   string    `json:"schema"`
	Instance string    `json:"instance"`
	Started  time.Time `json:"started"`
	Changes  []Change  `json:"changes"`
	Restart  []string  `json:"restart,omitempty"`
	Status   string    `json:"status"`
	Error    string    `json:"error,omitempty"`
	Path     string    `json:"-"`
}

// Run reads each variable's value, journals the run in dir, sets the
// dynamic ones with SET GLOBAL and reads every one back with SHOW GLOBAL
// VARIABLES. A statement refused or a value not taken undoes what was set.
func Run(ctx context.Context, db *sql.DB, settings map[string]string, dir, instance string) (*Journal, error) {
	live, restart, err := Plan(settings)
	if err != nil {
		return nil, err
	}
	j := &Journal{Schema: JournalSchema, Instance: instance, Started: time.Now().UTC(), Restart: restart, Status: "running",
		Path: filepath.Join(dir, time.Now().UTC().Format("20060102T150405.000Z")+".json")}
	for _, c := range live {
		if c.Old, err = show(ctx, db, c.Name); err != nil {
			return nil, err
		}
		j.Changes = append(j.Changes, c)
	}
	if err := j.save(); err != nil {
		return nil, err
	}
	err = set(ctx, db, j, func(c *Change) string { return c.New })
	j.Status = "done"
	if err != nil {
		j.Status, j.Error = "rolled-back", err.Error()
		if uerr := undo(ctx, db, j); uerr != nil {
			j.Status, j.Error = "failed", j.Error+"; undoing it failed too: "+uerr.Error()
		}
	}
	if serr := j.save(); serr != nil && err == nil {
		err = serr
	}
	return j, err
}

// Rollback sets every variable the run changed back to its old value and
// verifies it.
func Rollback(ctx context.Context, db *sql.DB, j *Journal) error {
	if err := undo(ctx, db, j); err != nil {
		return err
	}
	j.Status = "undone"
	return j.save()
}

func undo(ctx context.Context, db *sql.DB, j *Journal) error {
	back := &Journal{Changes: slices.Clone(j.Changes)}
	slices.Reverse(back.Changes)
	return set(ctx, db, back, func(c *Change) string {
		if !c.Done {
			return ""
		}
		return c.Old
	})
}

// set runs SET GLOBAL for each change to the value pick gives ("" skips
// it) and verifies it with SHOW GLOBAL VARIABLES.
func set(ctx context.Context, db *sql.DB, j *Journal, pick func(*Change) string) error {
	for i := range j.Changes {
		c := &j.Changes[i]
		v := pick(c)
		if v == "" || !dynamic[c.Name] || !value.MatchString(strings.ToUpper(v)) {
			continue
		}
		// The name comes from the dynamic list and the value matched value:
		// neither can carry SQL.
		if _, err := db.ExecContext(ctx, "SET GLOBAL "+c.Name+" = "+v); err != nil {
			return fmt.Errorf("SET GLOBAL %s = %s: %w", c.Name, v, err)
		}
		c.Done = true
		got, err := show(ctx, db, c.Name)
		if err != nil {
			return err
		}
		c.Got = got
		if !strings.EqualFold(got, v) {
			return fmt.Errorf("SET GLOBAL %s = %s: SHOW GLOBAL VARIABLES says %s", c.Name, v, got)
		}
	}
	return nil
}

// show reads one global variable.
func show(ctx context.Context, db *sql.DB, name string) (string, error) {
	var n, v string
	err := db.QueryRowContext(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name = ?", name).Scan(&n, &v)
	if err != nil {
		return "", fmt.Errorf("SHOW GLOBAL VARIABLES %s: %w", name, err)
	}
	return v, nil
}

func (j *Journal) save() error {
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	if err := hostchange.StateDir(filepath.Dir(j.Path)); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return hostchange.WriteFile(j.Path, append(b, '\n'), 0o600, -1, -1)
}

func sortedNames(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Latest is the newest run in dir that is done and not yet undone.
func Latest(dir string) (*Journal, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	for i := len(names) - 1; i >= 0; i-- {
		b, ok, err := hostchange.ReadState(names[i])
		if err != nil || !ok {
			continue
		}
		var j Journal
		if json.Unmarshal(b, &j) == nil && j.Schema == JournalSchema && j.Status == "done" {
			j.Path = names[i]
			return &j, nil
		}
	}
	return nil, fmt.Errorf("no MySQL run to undo in %s", dir)
}
