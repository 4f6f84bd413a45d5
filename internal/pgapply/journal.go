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
	"syscall"
	"time"
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

// dir is where the journals live: JournalDir/postgres, made 0700 and
// refused when another user could write it or it is a link.
func dir(journalDir string) (string, error) {
	d := filepath.Join(journalDir, "postgres")
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", fmt.Errorf("journal directory: %w", err)
	}
	st, err := os.Lstat(d)
	if err != nil {
		return "", fmt.Errorf("journal directory: %w", err)
	}
	sys, _ := st.Sys().(*syscall.Stat_t)
	switch {
	case !st.IsDir():
		return "", fmt.Errorf("journal directory %s is not a directory", d)
	case st.Mode().Perm()&0o022 != 0:
		return "", fmt.Errorf("journal directory %s is writable by others (%v): chmod 700 it", d, st.Mode().Perm())
	case sys != nil && int(sys.Uid) != os.Geteuid():
		return "", fmt.Errorf("journal directory %s belongs to uid %d, not to dbmem's", d, sys.Uid)
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
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
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

// save writes the journal atomically (a temporary file renamed over it).
func (j *Journal) save() error {
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(j.Path), "."+j.ID+".tmp-*")
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err = tmp.Write(b); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), j.Path)
	}
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.Path, err)
	}
	return nil
}

// Journals lists the runs journaled in journalDir, oldest first.
func Journals(journalDir string) ([]*Journal, error) {
	d := filepath.Join(journalDir, "postgres")
	ents, err := os.ReadDir(d)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
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

// maxJournal bounds a journal file's size.
const maxJournal = 4 << 20

func readJournal(p string) (*Journal, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if len(b) > maxJournal {
		return nil, fmt.Errorf("journal %s: larger than %d bytes", p, maxJournal)
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
