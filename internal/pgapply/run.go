package pgapply

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Options say where runs are journaled and what the instance is called.
type Options struct {
	JournalDir string
	// Instance names the instance in the journal ("postgresql 15 port
	// 5432 (/var/lib/postgresql/15/main)").
	Instance string
	Now      func() time.Time
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

// Run carries out a plan: it journals it, runs each change (ALTER ROLE,
// ALTER SYSTEM), reloads the configuration and reads every value back
// from a new session. A statement the server refuses or a value it did
// not take undoes every change made (and reloads again); the journal says
// "rolled-back" and the error why.
func Run(ctx context.Context, s Session, p *Plan, o Options) (*Journal, error) {
	j, err := newJournal(o.JournalDir, p.Kind, p.Undoes, o.Instance, o.now(), p.Changes)
	if err != nil {
		return nil, err
	}
	j.Restart = p.Restart
	err = runChanges(ctx, s, j)
	if err == nil {
		err = reloadAndVerify(ctx, s, p, j)
	}
	j.Status = StatusDone
	if err != nil {
		j.Status, j.Error = StatusRolledBack, err.Error()
		if uerr := undo(ctx, s, j); uerr != nil {
			j.Status, j.Error = StatusFailed, j.Error+"; undoing the run failed too: "+uerr.Error()
			err = fmt.Errorf("%w; undoing it failed too: %v (journal %s)", err, uerr, j.Path)
		}
	}
	now := o.now().UTC()
	j.Finished = &now
	if serr := j.save(); serr != nil && err == nil {
		err = serr
	}
	return j, err
}

func runChanges(ctx context.Context, s Session, j *Journal) error {
	for i := range j.Changes {
		c := &j.Changes[i]
		if c.Kind == KindFile || c.Noop() {
			continue
		}
		if _, err := s.Exec(ctx, []string{c.setSQL()}); err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
		c.Done = true
		if err := j.save(); err != nil {
			return err
		}
	}
	return nil
}

func reloadAndVerify(ctx context.Context, s Session, p *Plan, j *Journal) error {
	if _, err := s.Exec(ctx, []string{"SELECT pg_reload_conf()"}); err != nil {
		return fmt.Errorf("reload: %w", err)
	}
	vp := &Plan{Changes: j.Changes}
	err := verify(ctx, s, vp)
	copy(j.Changes, vp.Changes) // what the server showed
	return err
}

// undo restores what a failed run changed, newest first, and reloads.
func undo(ctx context.Context, s Session, j *Journal) error {
	var errs []error
	for i := len(j.Changes) - 1; i >= 0; i-- {
		c := j.Changes[i]
		if !c.Done {
			continue
		}
		if _, err := s.Exec(ctx, []string{c.undo().setSQL()}); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.undo(), err))
			continue
		}
		j.Changes[i].Done = false
	}
	if _, err := s.Exec(ctx, []string{"SELECT pg_reload_conf()"}); err != nil {
		errs = append(errs, fmt.Errorf("reload: %w", err))
	}
	return errors.Join(errs...)
}

// PrepareRollback is the plan that restores what a run changed: the
// newest apply run not yet undone, or the run id.
func PrepareRollback(journalDir, id string) (*Plan, error) {
	all, err := Journals(journalDir)
	if err != nil {
		return nil, err
	}
	j, err := pickRun(all, id)
	if err != nil {
		return nil, err
	}
	p := &Plan{Kind: "rollback", Undoes: j.ID}
	for i := len(j.Changes) - 1; i >= 0; i-- {
		if c := j.Changes[i]; c.Done && c.Kind != KindFile {
			p.Changes = append(p.Changes, c.undo())
		}
	}
	if len(p.Changes) == 0 {
		return nil, fmt.Errorf("run %s changed nothing over SQL: nothing to roll back", j.ID)
	}
	return p, nil
}

func pickRun(all []*Journal, id string) (*Journal, error) {
	undone := map[string]bool{}
	for _, j := range all {
		if j.Kind == "rollback" && j.Status == StatusDone {
			undone[j.Undoes] = true
		}
	}
	for i := len(all) - 1; i >= 0; i-- {
		j := all[i]
		if id != "" && j.ID == id || id == "" && j.Kind == "apply" && !undone[j.ID] && j.Status == StatusDone {
			if undone[j.ID] {
				return nil, fmt.Errorf("run %s was rolled back already", j.ID)
			}
			return j, nil
		}
	}
	if id != "" {
		return nil, fmt.Errorf("no PostgreSQL run %q journaled", id)
	}
	return nil, errors.New("no PostgreSQL run to roll back")
}
