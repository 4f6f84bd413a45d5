package postgres

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/dbmem/dbmem/internal/confbudget"
	"github.com/dbmem/dbmem/internal/linux"
)

// ReadConfFile reads a postgresql.conf-style file at a host path (under
// fs.Root) with its includes into settings, later lines winning. Each value
// records its file and line. The read is bounded (confbudget.Default): an
// include cycle, a file over the budget, too many files, includes or
// levels are refused with an error naming the file.
func ReadConfFile(fs linux.FS, file string, src Source, into Settings) error {
	return ReadConfFileBudget(fs, file, src, into, confbudget.Default)
}

// ReadConfFileBudget is ReadConfFile with budget b.
func ReadConfFileBudget(fs linux.FS, file string, src Source, into Settings, b confbudget.Budget) error {
	c := &confRead{fs: fs, r: confbudget.New(fs, b), src: src, into: into}
	return c.file(file)
}

// confRead is one read of a configuration and its includes.
type confRead struct {
	fs   linux.FS
	r    *confbudget.Reader
	src  Source
	into Settings
}

func (c *confRead) file(file string) error {
	b, err := c.r.Enter(file)
	if err != nil {
		return err // it names the file
	}
	defer c.r.Leave()
	entries, err := parseConf(bytes.NewReader(b), file)
	if err != nil {
		return err
	}
	if err := c.r.FanOut(file, countIncludes(entries), "includes"); err != nil {
		return err
	}
	for _, e := range entries {
		if err := c.entry(file, e); err != nil {
			return err
		}
	}
	return nil
}

func countIncludes(entries []confEntry) int {
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name, "include") {
			n++
		}
	}
	return n
}

func (c *confRead) entry(file string, e confEntry) error {
	target := e.Value
	if e.Name == "include" || e.Name == "include_if_exists" || e.Name == "include_dir" {
		if !path.IsAbs(target) {
			target = path.Join(path.Dir(file), target)
		}
	}
	switch e.Name {
	case "include":
		return c.file(target)
	case "include_if_exists":
		if !c.fs.Exists(c.fs.HostPath(target)) && !c.fs.As(nil).Exists(c.fs.HostPath(target)) {
			return nil // missing; one the account may not read is refused below
		}
		return c.file(target)
	case "include_dir":
		return c.dir(target)
	}
	c.into.set(e.Name, e.Value, c.src, fmt.Sprintf("%s:%d", file, e.Line))
	return nil
}

// dir reads the *.conf files of an include_dir in name order, skipping
// hidden files, as PostgreSQL does.
func (c *confRead) dir(dir string) error {
	ents, err := c.fs.ReadDir(c.fs.HostPath(dir))
	if err != nil {
		return fmt.Errorf("include_dir %s: %w", dir, err)
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e, ".conf") && !strings.HasPrefix(e, ".") {
			names = append(names, e)
		}
	}
	if err := c.r.FanOut(dir, len(names), "files to include (include_dir)"); err != nil {
		return err
	}
	sort.Strings(names)
	for _, n := range names {
		if err := c.file(path.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}
