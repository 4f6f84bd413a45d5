package myapply

import (
	"context"
	"database/sql"
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
	ID       string    `json:"id"`
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
	j := &Journal{Schema: JournalSchema, Instance: instance, Started: time.Now().UTC(), Restart: restart, Status: "running"}
	if j.ID, j.Path, err = hostchange.ClaimRun(dir, j.Started); err != nil {
		return nil, err
	}
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

func (j *Journal) save() error { return hostchange.SaveRun(j.Path, j) }

func sortedNames(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Journals reads every run journaled in dir, oldest first
// (hostchange.ListRuns).
func Journals(dir string) ([]*Journal, error) {
	return hostchange.ListRuns(dir, func(p string) (*Journal, error) {
		j, err := hostchange.ReadRun(p, JournalSchema, func(j *Journal) string { return j.Schema })
		if err == nil {
			j.Path = p
			if j.ID == "" { // a run journaled before runs had ids
				j.ID = strings.TrimSuffix(filepath.Base(p), ".json")
			}
		}
		return j, err
	})
}

// Summary is one line for a list of runs: when, on which server, its
// status and each change.
func (j *Journal) Summary() string {
	var what []string
	for _, c := range j.Changes {
		what = append(what, c.Name+"="+c.New)
	}
	return fmt.Sprintf("%s  %s on %s\n    %s", j.ID, j.Status, j.Instance, strings.Join(what, " "))
}

// Latest is the newest run in dir that is done and not yet undone.
func Latest(dir string) (*Journal, error) {
	all, err := Journals(dir)
	if err != nil {
		return nil, err
	}
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].Status == "done" {
			return all[i], nil
		}
	}
	return nil, fmt.Errorf("no MySQL run to undo in %s", dir)
}
