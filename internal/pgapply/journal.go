package pgapply

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
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
func dir(journalDir string) (string, error) {
	d := filepath.Join(journalDir, "postgres")
	if err := hostchange.StateDir(d); err != nil {
		return "", fmt.Errorf("journal: %w", err)
	}
	return d, nil
}

func newJournal(journalDir, kind, undoes, instance string, now time.Time, changes []Change) (*Journal, error) {
	d, err := dir(journalDir)
	if err != nil {
		return nil, err
	}
	id := now.UTC().Format("20060102T150405.000Z")
	for i := 1; ; i++ {
		p := filepath.Join(d, id+".json")
		f, err := hostchange.OpenState(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
			j := &Journal{Schema: JournalSchema, ID: id, Kind: kind, Undoes: undoes, Instance: instance, Started: now.UTC(),
				Status: StatusRunning, Changes: changes, Path: p}
			return j, j.save()
		}
		if !errors.Is(err, fs.ErrExist) || i > 100 {
			return nil, fmt.Errorf("journal: %w", err)
		}
		id = fmt.Sprintf("%s-%d", now.UTC().Format("20060102T150405.000Z"), i)
	}
}

// save writes the journal atomically (hostchange.WriteFile).
func (j *Journal) save() error {
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	if err := hostchange.WriteFile(j.Path, append(b, '\n'), 0o600, -1, -1); err != nil {
		return fmt.Errorf("journal %s: %w", j.Path, err)
	}
	return nil
}

// Journals lists the runs journaled in journalDir, oldest first. A
// directory another user could write is refused (hostchange.CheckDir).
func Journals(journalDir string) ([]*Journal, error) {
	d := filepath.Join(journalDir, "postgres")
	if err := hostchange.CheckDir(d); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(d)
	if err != nil {
		return nil, err
	}
	var out []*Journal
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		j, err := readJournal(filepath.Join(d, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out, nil
}

func readJournal(p string) (*Journal, error) {
	b, ok, err := hostchange.ReadState(p)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("journal %s: gone", p)
	}
	var j Journal
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("journal %s: %w", p, err)
	}
	if j.Schema != JournalSchema {
		return nil, fmt.Errorf("journal %s: schema %q, want %s", p, j.Schema, JournalSchema)
	}
	j.Path = p
	return &j, nil
}
