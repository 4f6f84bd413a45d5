package lab

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// journal records what a lab run changed, before it changes it, so that a
// run killed with SIGKILL (or a crash) is undone by the next `dbmem lab` or
// by `dbmem lab --restore`.
type journal struct {
	PID        int       `json:"pid"`
	StartTicks uint64    `json:"start_ticks"`
	Started    time.Time `json:"started"`
	// ClusterDir is the throwaway cluster, stopped and removed on restore.
	ClusterDir string `json:"cluster_dir,omitempty"`
	// Cgroup is the memory cgroup of `lab oom` (and its parent, where what
	// is left in it goes), removed on restore after the cluster.
	Cgroup       string   `json:"cgroup,omitempty"`
	CgroupParent string   `json:"cgroup_parent,omitempty"`
	Changes      []change `json:"changes,omitempty"`
}

// change is one kernel file the run wrote: its value before and the value
// the run set.
type change struct {
	Path   string `json:"path"`
	Before string `json:"before"`
	Set    string `json:"set"`
}

// parseJournal reads a journal file.
func parseJournal(r io.Reader) (journal, error) {
	var j journal
	dec := json.NewDecoder(r)
	if err := dec.Decode(&j); err != nil {
		return j, fmt.Errorf("not a dbmem lab journal: %w", err)
	}
	return j, nil
}

// readJournal returns the journal at path; ok is false when there is none.
func readJournal(path string) (journal, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return journal{}, false, nil
	}
	if err != nil {
		return journal{}, false, fmt.Errorf("read lab journal: %w", err)
	}
	j, err := parseJournal(bytes.NewReader(b))
	if err != nil {
		return j, false, fmt.Errorf("%s: %w (remove it after checking vm.nr_hugepages yourself)", path, err)
	}
	return j, true, nil
}

// writeJournal replaces the journal atomically: a temporary file in the
// same directory, fsync, rename.
func writeJournal(path string, j journal) error {
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".dbmem-lab-journal-*")
	if err != nil {
		return fmt.Errorf("write lab journal: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write lab journal %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync lab journal: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("install lab journal %s: %w", path, err)
	}
	return nil
}

func removeJournal(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove lab journal: %w", err)
	}
	return nil
}

// safeClusterDir reports whether dir looks like a cluster directory the lab
// created (pgcluster names them dbmem-pg-*), so that a damaged journal never
// makes the restore delete anything else.
func safeClusterDir(dir string) bool {
	return filepath.IsAbs(dir) && filepath.Clean(dir) == dir && strings.HasPrefix(filepath.Base(dir), "dbmem-pg-")
}

// CgroupPrefix starts the name of every memory cgroup the lab makes.
const CgroupPrefix = "dbmem-lab-oom-"

// safeCgroup reports whether dir looks like a memory cgroup the lab made,
// under a cgroup file system, with its parent next to it.
func safeCgroup(dir, parent string) bool {
	return filepath.IsAbs(dir) && filepath.Clean(dir) == dir && strings.HasPrefix(dir, "/sys/fs/cgroup/") &&
		strings.HasPrefix(filepath.Base(dir), CgroupPrefix) && filepath.Dir(dir) == parent
}
