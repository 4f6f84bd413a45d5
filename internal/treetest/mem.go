package treetest

import (
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// Mem is an in-memory tree for linux.FS.Files (fuzz tests build one per
// input): file paths to contents, directories implied by the paths. It
// counts the files read.
type Mem struct {
	Files map[string]string
	mu    sync.Mutex
	reads int
}

// Reads is the number of ReadFile calls that found a file.
func (m *Mem) Reads() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reads
}

// ReadFile returns a file's content.
func (m *Mem) ReadFile(p string) ([]byte, error) {
	s, ok := m.Files[path.Clean(p)]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: p, Err: syscall.ENOENT}
	}
	m.mu.Lock()
	m.reads++
	m.mu.Unlock()
	return []byte(s), nil
}

// ReadDir lists the names directly under dir.
func (m *Mem) ReadDir(dir string) ([]string, error) {
	dir = strings.TrimSuffix(path.Clean(dir), "/") + "/"
	seen := map[string]bool{}
	for p := range m.Files {
		if rest, ok := strings.CutPrefix(p, dir); ok {
			seen[strings.SplitN(rest, "/", 2)[0]] = true
		}
	}
	if len(seen) == 0 {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: syscall.ENOENT}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// Readlink: a Mem holds no links.
func (m *Mem) Readlink(p string) (string, error) {
	return "", &fs.PathError{Op: "readlink", Path: p, Err: syscall.EINVAL}
}

// Exists reports whether p is a file or a directory of the tree.
func (m *Mem) Exists(p string) bool {
	if _, ok := m.Files[path.Clean(p)]; ok {
		return true
	}
	_, err := m.ReadDir(p)
	return err == nil
}
