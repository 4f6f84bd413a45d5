package apply

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
)

// Run carries out a plan from Prepare or PrepareRollback and journals it in
// o.JournalDir. A plan with refusals is not run (RefusedError). When a step
// fails (a write the kernel rejects, a value that reads back different, a
// pool it could only partly allocate) every step already made is undone,
// the journal says "rolled-back" and the error explains the failure.
func Run(p *Plan, o Options) (*Journal, error) {
	o = o.withDefaults()
	if len(p.Refusals) > 0 {
		return nil, &RefusedError{Refusals: p.Refusals}
	}
	if o.lock == nil {
		var release func()
		var err error
		if o, release, err = Lock(o); err != nil {
			return nil, err
		}
		defer release()
	}
	j, err := newJournal(p, o)
	if err != nil {
		return nil, err
	}
	r := runner{o: o, j: j}
	err = r.run(p)
	j.Status = StatusDone
	if err != nil {
		j.Status, j.Error = StatusRolledBack, err.Error()
		if uerr := undo(j, o); uerr != nil {
			j.Status = StatusFailed
			j.Error += "; undoing the run failed too: " + uerr.Error()
			err = fmt.Errorf("%w; undoing the run failed too: %v (journal %s)", err, uerr, j.Path)
		}
	}
	now := o.Now().UTC()
	j.Finished = &now
	if serr := j.save(); serr != nil && err == nil {
		err = serr
	}
	return j, err
}

// runner makes a plan's steps, recording each in the journal (if any)
// before and after it is made.
type runner struct {
	o Options
	j *Journal
}

func (r runner) run(p *Plan) error {
	for _, c := range p.Live {
		if !c.Noop() {
			if err := r.live(c); err != nil {
				return err
			}
		}
	}
	for _, f := range p.Files {
		r.removeTemps(f.Target)
		if !f.Noop() {
			if err := r.file(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// removeTemps removes the temporary files a killed run left next to a
// file, also when there is nothing to write (a rollback of a file the
// killed run never renamed into place), and notes each in the journal.
func (r runner) removeTemps(target string) {
	for _, t := range hostchange.RemoveTemps(filepath.Dir(target), filepath.Base(target)) {
		r.record(func(j *Journal) { j.Notes = append(j.Notes, "removed "+t+", left by an interrupted run") })
	}
}

func (r runner) record(update func(j *Journal)) error {
	if r.j == nil {
		return nil
	}
	update(r.j)
	return r.j.save()
}

func (r runner) live(c Change) error {
	old, err := r.o.Kernel.Read(c.Path)
	if err != nil {
		return fmt.Errorf("read %s: %w", c.Path, err)
	}
	c.Old = linux.SelectedWord(old)
	if err := r.record(func(j *Journal) { j.Live = append(j.Live, c) }); err != nil {
		return err
	}
	err = c.apply(r.o.Kernel)
	if rerr := r.record(func(j *Journal) { j.Live[len(j.Live)-1] = c }); err == nil {
		err = rerr
	}
	return err
}

func (r runner) file(f FileChange) error {
	rec := FileRecord{Path: f.Target, Existed: f.Exists, Removed: f.Remove}
	if f.Exists {
		rec.OldSHA256 = sum([]byte(f.Old))
	}
	if f.Exists && r.j != nil {
		b, err := backup(f.Target, r.backupPath(f.Target))
		if err != nil {
			return fmt.Errorf("back up %s: %w", f.Target, err)
		}
		rec.Backup = b
	}
	if !f.Remove {
		rec.NewSHA256 = sum([]byte(f.Content))
		dirs, err := mkdirs(filepath.Dir(f.Target))
		if err != nil {
			return fmt.Errorf("create the directory of %s: %w", f.Target, err)
		}
		rec.CreatedDirs = dirs
	}
	if err := r.record(func(j *Journal) { j.Files = append(j.Files, rec) }); err != nil {
		return err
	}
	if err := r.change(f); err != nil {
		return err
	}
	return r.record(func(j *Journal) { j.Files[len(j.Files)-1].Done = true })
}

// change writes (and verifies) or removes the file, then removes the
// directories a rollback empties.
func (r runner) change(f FileChange) error {
	if f.Remove {
		if err := os.Remove(f.Target); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		err := hostchange.SyncDir(filepath.Dir(f.Target))
		removeEmptyDirs(f.Dirs)
		return err
	}
	if err := hostchange.WriteFile(f.Target, []byte(f.Content), f.Mode, f.UID, f.GID); err != nil {
		return fmt.Errorf("write %s: %w", f.Target, err)
	}
	return verifyFile(f.Target, []byte(f.Content))
}

// backupPath is where the previous file is kept: next to it, named after
// the run, for an apply; in the journal directory for a rollback, so that
// undoing a run leaves the configuration directories as they were.
func (r runner) backupPath(target string) string {
	if r.j.Kind == "rollback" {
		return filepath.Join(r.o.JournalDir, r.j.ID+".files", flatName(target))
	}
	return backupName(target, r.j.ID)
}

// flatName is a path as one file name in a rollback's backup directory.
func flatName(path string) string { return strings.ReplaceAll(strings.TrimPrefix(path, "/"), "/", "%") }

// removeEmptyDirs removes directories, innermost first, while they are
// empty.
func removeEmptyDirs(dirs []string) {
	for i := len(dirs) - 1; i >= 0; i-- {
		if os.Remove(dirs[i]) != nil {
			return
		}
	}
}

// undo reverts what a failed run did, without a journal of its own.
func undo(j *Journal, o Options) error {
	p, err := reversePlan(j, o)
	if err != nil {
		return err
	}
	return runner{o: o}.run(p)
}

// afterNotes say what makes each written file take effect.
func afterNotes(files []FileChange) []string {
	var out []string
	for _, f := range files {
		if !f.Noop() && f.Then != "" {
			out = append(out, f.Path+": "+f.Then)
		}
	}
	return out
}
