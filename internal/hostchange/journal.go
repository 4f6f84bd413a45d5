package hostchange

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// JournalSchema versions a Journal's JSON.
const JournalSchema = "dbmem.hostjournal/v1"

// Journal records what its owner changed on the host, each entry written
// (and synced) before the change is made, so that a run killed outright
// is undone by the next holder of the lock (Replay). It is kept in a
// state directory (StateDir) and read only through OpenState.
type Journal struct {
	Schema string `json:"schema"`
	// Owner is the process that writes it: while it runs, Replay leaves
	// its journal alone.
	Owner   Owner   `json:"owner"`
	Entries []Entry `json:"entries"`
	path    string
}

// Owner is a journal's writer.
type Owner struct {
	Process
	Program string    `json:"program"` // "dbmem lab", "kerneltest", ...
	Started time.Time `json:"started"`
}

// Entry is one change; exactly one field is set.
type Entry struct {
	Kernel  *Kernel  `json:"kernel,omitempty"`
	Cluster *Cluster `json:"cluster,omitempty"`
	Cgroup  *Cgroup  `json:"cgroup,omitempty"`
}

// Kernel is a kernel setting changed: its value before, and the value
// set when the writer knows it ("" when not: Replay then writes Before
// whatever the setting holds).
type Kernel struct {
	Setting
	Before string `json:"before"`
	Set    string `json:"set,omitempty"`
}

// NewJournal starts an empty journal at path owned by the running
// process; nothing is written until Save.
func NewJournal(path, program string) (*Journal, error) {
	self, err := Self()
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	return &Journal{Schema: JournalSchema, Owner: Owner{Process: self, Program: program, Started: time.Now().UTC()}, path: path}, nil
}

// LoadJournal reads the journal at path (OpenState: a regular file of the
// user running dbmem that nobody else may write, in a state directory);
// ok is false when there is none.
func LoadJournal(path string) (j *Journal, ok bool, err error) {
	b, ok, err := ReadState(path)
	if err != nil || !ok {
		return nil, false, err
	}
	if j, err = parseJournal(b); err != nil {
		return nil, false, fmt.Errorf("%s %w; fix: check the settings it names by hand, then remove it", path, err)
	}
	j.path = path
	return j, true, nil
}

// parseJournal decodes a journal: one JSON object of known fields only.
func parseJournal(b []byte) (*Journal, error) {
	j := &Journal{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(j); err != nil {
		return nil, fmt.Errorf("is not a dbmem journal: %w", err)
	}
	if dec.More() {
		return nil, errors.New("is not a dbmem journal: more than one JSON value")
	}
	if j.Schema != JournalSchema {
		return nil, fmt.Errorf("has schema %q, this dbmem reads %q", j.Schema, JournalSchema)
	}
	return j, nil
}

// Path is where the journal is kept.
func (j *Journal) Path() string { return j.path }

// Add appends e and saves the journal.
func (j *Journal) Add(e Entry) error {
	j.Entries = append(j.Entries, e)
	return j.Save()
}

// DropKernel removes the newest entry of s, once its old value is back,
// and saves the journal (removes it when no entry is left).
func (j *Journal) DropKernel(s Setting) error {
	for i := len(j.Entries) - 1; i >= 0; i-- {
		if k := j.Entries[i].Kernel; k != nil && k.Setting == s {
			j.Entries = append(j.Entries[:i], j.Entries[i+1:]...)
			break
		}
	}
	if len(j.Entries) == 0 {
		return j.Remove()
	}
	return j.Save()
}

// Save writes the journal atomically into its state directory.
func (j *Journal) Save() error {
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	if err := StateDir(filepath.Dir(j.path)); err != nil {
		return err
	}
	if err := WriteFile(j.path, append(b, '\n'), 0o600, -1, -1); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// Remove deletes the journal; a missing one is not an error.
func (j *Journal) Remove() error {
	if err := os.Remove(j.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove journal: %w", err)
	}
	return nil
}
