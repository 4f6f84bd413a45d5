package apply

import (
	"fmt"
	"strings"
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
	now := o.Now().UTC()
	id, path, err := hostchange.ClaimRun(o.JournalDir, now)
	if err != nil {
		return nil, err
	}
	j := &Journal{Schema: JournalSchema, ID: id, Kind: p.Kind, Undoes: p.Undoes, Started: now, Settings: p.Persisted,
		Status: StatusRunning, Notes: p.Notes, Live: []Change{}, Files: []FileRecord{}, Path: path}
	return j, j.save()
}

// save writes the journal atomically and durably.
func (j *Journal) save() error { return hostchange.SaveRun(j.Path, j) }

// ReadJournal reads one journal file: a regular file of the user running
// dbmem, in a directory only that user can write, that no one else may
// write (hostchange.ReadRun).
func ReadJournal(path string) (*Journal, error) {
	j, err := hostchange.ReadRun(path, JournalSchema, func(j *Journal) string { return j.Schema })
	if err == nil {
		j.Path = path
	}
	return j, err
}

// Journals reads every journal in dir, oldest first; a directory another
// user could write is refused (hostchange.ListRuns).
func Journals(dir string) ([]*Journal, error) { return hostchange.ListRuns(dir, ReadJournal) }

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
