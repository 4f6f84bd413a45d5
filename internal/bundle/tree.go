package bundle

import (
	"io/fs"
	"path"
	"slices"
	"strings"
	"syscall"
)

// treeRoot is the name under which a bundle's members are read (linux.FS
// roots /dbmem-bundle/proc ...). Nothing is ever written there: a reader
// that bypassed linux.FS and opened such a path would find nothing, as only
// root can create a directory in /.
const treeRoot = "/dbmem-bundle"

// tree is a bundle's members held in memory: a linux.Files.
type tree struct {
	files map[string][]byte          // "proc/1/stat"
	links map[string]string          // "proc/1/cwd" -> its target
	dirs  map[string]map[string]bool // "proc/1" -> {"stat", "cwd"}; "" is the top
}

func newTree() *tree {
	return &tree{files: map[string][]byte{}, links: map[string]string{}, dirs: map[string]map[string]bool{"": {}}}
}

// rel maps a path under treeRoot to a member name ("" for the top).
func rel(p string) (string, bool) {
	p = path.Clean(p)
	if p == treeRoot {
		return "", true
	}
	r, ok := strings.CutPrefix(p, treeRoot+"/")
	return r, ok
}

// notExist is the error os would give ("no such file or directory"):
// ENOENT matches fs.ErrNotExist for errors.Is and reads the same in every
// message, live or from a bundle.
func notExist(op, p string) error { return &fs.PathError{Op: op, Path: p, Err: syscall.ENOENT} }

// ReadFile returns a member's bytes (shared: callers must not change them;
// linux.FS's readers only parse).
func (t *tree) ReadFile(p string) ([]byte, error) {
	r, ok := rel(p)
	if !ok {
		return nil, notExist("open", p)
	}
	if b, ok := t.files[r]; ok {
		return b, nil
	}
	if _, ok := t.dirs[r]; ok {
		return nil, &fs.PathError{Op: "read", Path: p, Err: syscall.EISDIR}
	}
	return nil, notExist("open", p)
}

// ReadDir lists a directory's names, sorted.
func (t *tree) ReadDir(p string) ([]string, error) {
	r, ok := rel(p)
	if !ok {
		return nil, notExist("open", p)
	}
	d, ok := t.dirs[r]
	if !ok {
		if _, file := t.files[r]; file {
			return nil, &fs.PathError{Op: "readdirent", Path: p, Err: syscall.ENOTDIR}
		}
		return nil, notExist("open", p)
	}
	names := make([]string, 0, len(d))
	for n := range d {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}

// Readlink returns a recorded /proc link's target.
func (t *tree) Readlink(p string) (string, error) {
	r, ok := rel(p)
	if !ok {
		return "", notExist("readlink", p)
	}
	if l, ok := t.links[r]; ok {
		return l, nil
	}
	if t.Exists(p) {
		return "", &fs.PathError{Op: "readlink", Path: p, Err: syscall.EINVAL}
	}
	return "", notExist("readlink", p)
}

// Exists reports whether p is a member, a directory or a link.
func (t *tree) Exists(p string) bool {
	r, ok := rel(p)
	if !ok {
		return false
	}
	_, f := t.files[r]
	_, d := t.dirs[r]
	_, l := t.links[r]
	return f || d || l
}

// taken reports whether name is already a file, a link or a directory.
func (t *tree) taken(name string) bool {
	_, f := t.files[name]
	_, d := t.dirs[name]
	_, l := t.links[name]
	return f || d || l
}
