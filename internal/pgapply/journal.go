package pgapply

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
)

// JournalSchema versions the journal's JSON.
const JournalSchema = "dbmem.pgapply.journal/v1"

// Journal statuses (as internal/apply's).
const (
	StatusRunning    = "running"
	StatusDone       = "done"
	StatusRolledBack = "rolled-back"
	StatusFailed     = "failed"
)

// Journal records one run, written before each step and after it.
type Journal struct {
	Schema   string     `json:"schema"`
	ID       string     `json:"id"`
	Kind     string     `json:"kind"`
	Undoes   string     `json:"undoes,omitempty"`
	Instance string     `json:"instance"`
	Started  time.Time  `json:"started"`
	Finished *time.Time `json:"finished,omitempty"`
	Status   string     `json:"status"`
	Error    string     `json:"error,omitempty"`
	Changes  []Change   `json:"changes"`
	Restart  []string   `json:"restart,omitempty"`
	Path     string     `json:"-"`
}

// dir is where the journals live: JournalDir/postgres, a state
// directory only the user running dbmem may write (hostchange.StateDir:
// made 0700, refused when another user could change it or a link of
// theirs leads there).
func dir(journalDir string) string { return filepath.Join(journalDir, "postgres") }

func newJournal(journalDir, kind, undoes, instance string, now time.Time, changes []Change) (*Journal, error) {
	id, p, err := hostchange.ClaimRun(dir(journalDir), now)
	if err != nil {
		return nil, err
	}
	j := &Journal{Schema: JournalSchema, ID: id, Kind: kind, Undoes: undoes, Instance: instance, Started: now.UTC(),
		Status: StatusRunning, Changes: changes, Path: p}
	return j, j.save()
}

// save writes the journal atomically (hostchange.SaveRun).
func (j *Journal) save() error { return hostchange.SaveRun(j.Path, j) }

// Journals lists the runs journaled in journalDir, oldest first. A
// directory another user could write is refused (hostchange.ListRuns).
func Journals(journalDir string) ([]*Journal, error) {
	return hostchange.ListRuns(dir(journalDir), readJournal)
}

func readJournal(p string) (*Journal, error) {
	j, err := hostchange.ReadRun(p, JournalSchema, func(j *Journal) string { return j.Schema })
	if err == nil {
		j.Path = p
	}
	return j, err
}

// Summary is one line for a list of runs (all: every run, to say which
// rollback undid this one): id, kind, status, server and each change.
func (j *Journal) Summary(all []*Journal) string {
	state := j.Status
	for _, r := range all {
		if r.Undoes == j.ID && r.Status == StatusDone {
			state += ", undone by " + r.ID
		}
	}
	if j.Undoes != "" {
		state += ", undoes " + j.Undoes
	}
	var what []string
	for _, c := range j.Changes {
		name := c.Name
		if c.Role != "" {
			name = c.Role + "." + name
		}
		what = append(what, name+"="+c.New)
	}
	return fmt.Sprintf("%s  %-8s %s on %s\n    %s", j.ID, j.Kind, state, j.Instance, strings.Join(what, " "))
}
