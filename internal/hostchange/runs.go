package hostchange

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
)

// runIDLayout names a run by its start: UTC to the millisecond, so the
// records of a directory sort oldest first.
const runIDLayout = "20060102T150405.000Z"

// ClaimRun makes dir a state directory (StateDir) and creates in it,
// exclusively, the record of a run started at started: two runs never get
// one id, even within a millisecond (the second gets "-2", and so on). The
// file is empty until SaveRun writes it.
func ClaimRun(dir string, started time.Time) (id, path string, err error) {
	if err := StateDir(dir); err != nil {
		return "", "", fmt.Errorf("journal directory: %w", err)
	}
	base := started.UTC().Format(runIDLayout)
	id = base
	for i := 2; i < 1000; i++ {
		path = filepath.Join(dir, id+".json")
		f, err := OpenState(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			return id, path, f.Close()
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", "", fmt.Errorf("journal directory: %w", err)
		}
		id = fmt.Sprintf("%s-%d", base, i)
	}
	return "", "", fmt.Errorf("journal directory %s: no free run id after %s", dir, id)
}

// SaveRun writes a run's record as indented JSON, atomically and durably
// (WriteFile), readable by its owner only.
func SaveRun(path string, record any) error {
	b, err := json.MarshalIndent(record, "", "  ")
	if err != nil {
		return err
	}
	if err := WriteFile(path, append(b, '\n'), 0o600, -1, -1); err != nil {
		return fmt.Errorf("write journal %s: %w", path, err)
	}
	return nil
}

// ReadRun reads one run's record into a new T: a regular file of the
// user running dbmem, in a directory no one else may write (ReadState).
// schema says which schema the record has; a record of another schema is
// refused, naming both.
func ReadRun[T any](path, want string, schema func(*T) string) (*T, error) {
	b, ok, err := ReadState(path)
	if err == nil && !ok {
		err = fmt.Errorf("read journal %s: %w", path, fs.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	r := new(T)
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("parse journal %s: %w", path, err)
	}
	if got := schema(r); got != want {
		return nil, fmt.Errorf("journal %s has schema %q, this dbmem reads %q", path, got, want)
	}
	return r, nil
}

// ListRuns reads every run recorded in dir, oldest first. A missing
// directory has no runs; one another user could write is refused
// (CheckDir). A record claimed by a run killed before it wrote anything is
// empty and skipped, as are hidden files (a write in progress).
func ListRuns[T any](dir string, read func(path string) (*T, error)) ([]*T, error) {
	if err := CheckDir(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	id := func(n string) string { return strings.TrimSuffix(filepath.Base(n), ".json") }
	sort.Slice(names, func(a, b int) bool { return id(names[a]) < id(names[b]) })
	var out []*T
	for _, n := range names {
		if st, err := os.Lstat(n); strings.HasPrefix(filepath.Base(n), ".") ||
			err == nil && st.Mode().IsRegular() && st.Size() == 0 {
			continue
		}
		r, err := read(n)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
