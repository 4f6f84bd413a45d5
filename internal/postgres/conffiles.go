package postgres

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// maxIncludeDepth matches PostgreSQL's limit on nested includes.
const maxIncludeDepth = 10

// ReadConfFile reads a postgresql.conf-style file at a host path (under
// fs.Root) with its includes into settings, later lines winning. Each value
// records its file and line.
func ReadConfFile(fs linux.FS, file string, src Source, into Settings) error {
	return readConf(fs, file, src, into, 0)
}

func readConf(fs linux.FS, file string, src Source, into Settings, depth int) error {
	if depth > maxIncludeDepth {
		return fmt.Errorf("%s: includes nested deeper than %d (a loop?)", file, maxIncludeDepth)
	}
	b, err := fs.ReadFile(fs.HostPath(file))
	if err != nil {
		return err // it names the file
	}
	entries, err := parseConf(bytes.NewReader(b), file)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := applyEntry(fs, file, e, src, into, depth); err != nil {
			return err
		}
	}
	return nil
}

func applyEntry(fs linux.FS, file string, e confEntry, src Source, into Settings, depth int) error {
	target := e.Value
	if e.Name == "include" || e.Name == "include_if_exists" || e.Name == "include_dir" {
		if !path.IsAbs(target) {
			target = path.Join(path.Dir(file), target)
		}
	}
	switch e.Name {
	case "include":
		return readConf(fs, target, src, into, depth+1)
	case "include_if_exists":
		if !fs.Exists(fs.HostPath(target)) && !fs.As(nil).Exists(fs.HostPath(target)) {
			return nil // missing; one the account may not read is refused below
		}
		return readConf(fs, target, src, into, depth+1)
	case "include_dir":
		return readConfDir(fs, target, src, into, depth+1)
	}
	into.set(e.Name, e.Value, src, fmt.Sprintf("%s:%d", file, e.Line))
	return nil
}

// readConfDir reads the *.conf files of dir in name order, skipping hidden
// files, as PostgreSQL does.
func readConfDir(fs linux.FS, dir string, src Source, into Settings, depth int) error {
	ents, err := fs.ReadDir(fs.HostPath(dir))
	if err != nil {
		return fmt.Errorf("include_dir %s: %w", dir, err)
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e, ".conf") && !strings.HasPrefix(e, ".") {
			names = append(names, e)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if err := readConf(fs, path.Join(dir, n), src, into, depth); err != nil {
			return err
		}
	}
	return nil
}
