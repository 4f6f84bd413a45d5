package kernelset

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Journal is the path of a journal of old values: "path<TAB>old value"
// lines, oldest first.
type Journal string

// Record appends path's old value and syncs it to disk, before the value
// is changed.
func (j Journal) Record(path, old string) error {
	f, err := os.OpenFile(string(j), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s\t%s\n", path, old)
	return errors.Join(err, f.Sync(), f.Close())
}

// Drop removes the newest entry for path, once its old value is back.
func (j Journal) Drop(path string) error {
	lines := j.entries()
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i][0] == path {
			lines = append(lines[:i], lines[i+1:]...)
			break
		}
	}
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%s\t%s\n", l[0], l[1])
	}
	return os.WriteFile(string(j), []byte(b.String()), 0o644)
}

// Replay restores, newest first, the values an interrupted holder left,
// checking that the kernel reads each back, and removes the journal.
func (j Journal) Replay() error {
	lines := j.entries()
	for i := len(lines) - 1; i >= 0; i-- {
		path, old := lines[i][0], lines[i][1]
		if err := Restore(path, old); err != nil {
			return fmt.Errorf("restore %s to %q: %w", path, old, err)
		}
	}
	if err := os.Remove(string(j)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// entries reads the journal: [path, old value] pairs, oldest first. A
// missing journal has none.
func (j Journal) entries() [][2]string {
	f, err := os.Open(string(j))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if path, old, ok := strings.Cut(sc.Text(), "\t"); ok {
			out = append(out, [2]string{path, old})
		}
	}
	return out
}
