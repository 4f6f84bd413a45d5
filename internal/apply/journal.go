package apply

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/hostchange"
)

// JournalSchema versions the journal's JSON.
const JournalSchema = "dbmem.journal/v1"

// Journal statuses.
const (
	StatusRunning    = "running"     // in progress, or the process died: roll back to undo
	StatusDone       = "done"        // every change made and verified
	StatusRolledBack = "rolled-back" // a step failed and the run undid itself
	StatusFailed     = "failed"      // a step failed and undoing it failed too
)

// Journal records one run: every old value and every backup, written
// before each step and updated after it.
type Journal struct {
	Schema   string       `json:"schema"`
	ID       string       `json:"id"`
	Kind     string       `json:"kind"`             // "apply" or "rollback"
	Undoes   string       `json:"undoes,omitempty"` // for a rollback: the run it restores
	Started  time.Time    `json:"started"`
	Finished *time.Time   `json:"finished,omitempty"`
	Status   string       `json:"status"`
	Error    string       `json:"error,omitempty"`
	Live     []Change     `json:"live"`
	Files    []FileRecord `json:"files"`
	Notes    []string     `json:"notes,omitempty"`
	// Settings are what the run's files hold (Plan.Persisted): a later run
	// that rewrites a file keeps those it does not change.
	Settings []finding.Setting `json:"settings,omitempty"`
	// Path is where the journal is stored.
	Path string `json:"-"`
}

// FileRecord is one file a run wrote or removed.
type FileRecord struct {
	Path    string `json:"path"` // on disk (FilesRoot applied)
	Existed bool   `json:"existed"`
	// Backup is the previous file, kept next to it.
	Backup      string   `json:"backup,omitempty"`
	Removed     bool     `json:"removed,omitempty"`
	OldSHA256   string   `json:"old_sha256,omitempty"`
	NewSHA256   string   `json:"new_sha256,omitempty"`
	CreatedDirs []string `json:"created_dirs,omitempty"`
	Done        bool     `json:"done"`
}

func newJournal(p *Plan, o Options) (*Journal, error) {
	if err := hostchange.StateDir(o.JournalDir); err != nil {
		return nil, err
	}
	now := o.Now().UTC()
	id, err := claimID(o.JournalDir, now.Format("20060102T150405.000Z"))
	if err != nil {
		return nil, err
	}
	j := &Journal{Schema: JournalSchema, ID: id, Kind: p.Kind, Undoes: p.Undoes, Started: now, Settings: p.Persisted,
		Status: StatusRunning, Notes: p.Notes, Live: []Change{}, Files: []FileRecord{},
		Path: filepath.Join(o.JournalDir, id+".json")}
	return j, j.save()
}

// claimID creates the journal file of a new run exclusively (O_EXCL): two
// runs never get one id, even within a millisecond.
func claimID(dir, base string) (string, error) {
	id := base
	for i := 2; i < 1000; i++ {
		f, err := os.OpenFile(filepath.Join(dir, id+".json"), os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
		if err == nil {
			return id, f.Close()
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("journal directory: %w", err)
		}
		id = fmt.Sprintf("%s-%d", base, i)
	}
	return "", fmt.Errorf("journal directory %s: no free run id after %s", dir, id)
}

// save writes the journal atomically and durably.
func (j *Journal) save() error {
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	if err := hostchange.WriteFile(j.Path, append(b, '\n'), 0o600, -1, -1); err != nil {
		return fmt.Errorf("write journal %s: %w", j.Path, err)
	}
	return nil
}

// ReadJournal reads one journal file: a regular file of the user running
// dbmem, in a directory only that user can write, that no one else may
// write (hostchange.ReadState).
func ReadJournal(path string) (*Journal, error) {
	b, ok, err := hostchange.ReadState(path)
	if err == nil && !ok {
		err = fmt.Errorf("read journal %s: %w", path, fs.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	var j Journal
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("parse journal %s: %w", path, err)
	}
	if j.Schema != JournalSchema {
		return nil, fmt.Errorf("journal %s has schema %q, this dbmem reads %q", path, j.Schema, JournalSchema)
	}
	j.Path = path
	return &j, nil
}

// Journals reads every journal in dir, oldest first; a directory another
// user could write is refused (hostchange.CheckDir).
func Journals(dir string) ([]*Journal, error) {
	if err := hostchange.CheckDir(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*Journal
	for _, n := range names {
		if st, err := os.Lstat(n); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
			continue // claimed by a run killed before it changed anything
		}
		j, err := ReadJournal(n)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out, nil
}

// UndoneBy returns the rollback that undid j ("" if none); a run that
// rolled itself back names itself.
func UndoneBy(j *Journal, all []*Journal) string {
	if j.Status == StatusRolledBack {
		return j.ID
	}
	for _, r := range all {
		if r.Undoes == j.ID && r.Status == StatusDone {
			return r.ID
		}
	}
	return ""
}

// paths is every kernel file and file a journal touched.
func (j *Journal) paths() map[string]bool {
	m := map[string]bool{}
	for _, c := range j.Live {
		m[c.Path] = true
	}
	for _, f := range j.Files {
		m[f.Path] = true
	}
	return m
}

// Summary is one line for a list of runs (all: every run, to say which
// rollback undid this one).
func (j *Journal) Summary(all []*Journal) string {
	var what []string
	for _, c := range j.Live {
		what = append(what, c.Setting.Name+"="+c.New)
	}
	for _, f := range j.Files {
		what = append(what, f.Path)
	}
	state := j.Status
	if by := UndoneBy(j, all); by != "" && by != j.ID {
		state += ", undone by " + by
	}
	if j.Undoes != "" {
		state += ", undoes " + j.Undoes
	}
	return fmt.Sprintf("%s  %-8s %s\n    %s", j.ID, j.Kind, state, strings.Join(what, " "))
}
