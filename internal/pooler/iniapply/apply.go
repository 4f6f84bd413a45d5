// Package iniapply renders pool sizes into a running PgBouncer's
// pgbouncer.ini and applies them with internal/apply (timestamped backup
// next to the file, atomic write, journal for rollback), then RELOAD over
// the admin console and a check with SHOW CONFIG and SHOW DATABASES; a
// failed check rolls the run back. It is apart from internal/pooler, which
// advise and snapshot use, because internal/apply needs them.
package iniapply

import (
	"context"
	"fmt"

	"github.com/dbmem/dbmem/internal/apply"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/redact"
	"github.com/dbmem/dbmem/internal/render"
)

// Plan is a change of a PgBouncer's pool sizes: the files to rewrite and
// their diff. Nothing in it has happened.
type Plan struct {
	Pooler  *pooler.Pooler     `json:"-"`
	PID     int                `json:"pid"`
	Changes []pooler.Change    `json:"changes"`
	Files   []apply.FileChange `json:"-"`
	// Diff is the unified diff of every file, with passwords in
	// connection strings replaced (redact.Secrets) and printed inert.
	Diff string `json:"diff"`
}

// Prepare renders the changes into the pooler's files (see
// pooler.PlanEdits). It changes nothing.
func Prepare(ctx context.Context, fs linux.FS, p *pooler.Pooler, changes []pooler.Change, o apply.Options) (*Plan, error) {
	edits, err := pooler.PlanEdits(ctx, fs, p, changes)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Pooler: p, PID: p.PID, Changes: changes}
	for _, e := range edits {
		fc, err := apply.FileFor(o, render.File{Kind: "pgbouncer", Path: e.File, Then: "RELOAD over the admin console"})
		if err != nil {
			return nil, err
		}
		if fc.Content, err = e.Render(fc.Old); err != nil {
			return nil, err
		}
		fc.File.Content = fc.Content
		plan.Files = append(plan.Files, fc)
		diff := apply.UnifiedDiff(fc.Old, fc.Content, fc.Target+"\t(current)", fc.Target+"\t(new)")
		red, _ := redact.Secrets(diff)
		plan.Diff += inert.Output(red, false) // the old file may hold anything; tabs stay
	}
	return plan, nil
}

// Changed reports whether the plan changes a file.
func (p *Plan) Changed() bool {
	for _, f := range p.Files {
		if !f.Noop() {
			return true
		}
	}
	return false
}

// Reloader runs RELOAD on a pooler and reads its console afterwards
// (pooler.Connector).
type Reloader interface {
	Reload(ctx context.Context, p *pooler.Pooler) (*pooler.Console, string, error)
}

// Apply writes the plan's files (backup, atomic write, journal), runs
// RELOAD and checks that PgBouncer holds every new value. When RELOAD or
// the check fails, the run is rolled back from its journal and RELOAD runs
// again, and the error says so.
func Apply(ctx context.Context, plan *Plan, o apply.Options, r Reloader) (*apply.Journal, error) {
	notes := []string{fmt.Sprintf("pgbouncer %d: RELOAD over its admin console; 'dbmem pooler rollback' restores the files and runs RELOAD", plan.PID)}
	var files []apply.FileChange
	for _, f := range plan.Files {
		if !f.Noop() {
			files = append(files, f)
		}
	}
	j, err := apply.Run(&apply.Plan{Kind: "apply", Files: files, Notes: notes}, o)
	if err != nil {
		return j, err
	}
	con, _, err := r.Reload(ctx, plan.Pooler)
	if err == nil {
		err = pooler.Verify(con, plan.Changes)
	}
	if err == nil {
		return j, nil
	}
	if _, rerr := Rollback(ctx, o, j.ID, plan.Pooler, r); rerr != nil {
		return j, fmt.Errorf("%w; rolling back failed too: %v (journal %s)", err, rerr, j.Path)
	}
	return j, fmt.Errorf("%w: rolled back (the files restored from the backups of run %s, RELOAD run again)", err, j.ID)
}

// Rollback restores the files of an apply run (id, or the newest not yet
// undone) and runs RELOAD.
func Rollback(ctx context.Context, o apply.Options, id string, p *pooler.Pooler, r Reloader) (*apply.Journal, error) {
	o.Restorable = Restorable(p)
	rp, err := apply.PrepareRollback(o, id)
	if err != nil {
		return nil, err
	}
	j, err := apply.Run(rp, o)
	if err != nil {
		return j, err
	}
	if _, _, err := r.Reload(ctx, p); err != nil {
		return j, fmt.Errorf("the files are restored, but RELOAD failed: %w", err)
	}
	return j, nil
}

// Restorable lets a rollback restore the configuration files of this
// running PgBouncer (as discovery found them: the main file and its
// includes), and no other file a journal may name.
func Restorable(p *pooler.Pooler) func(string) bool {
	files := map[string]bool{}
	for _, f := range p.Files {
		files[f] = true
	}
	return func(path string) bool { return files[path] }
}
