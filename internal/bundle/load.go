package bundle

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// loader reads a tar.gz into a tree, counting against the limits as it
// goes: nothing is written to disk, and a bundle that exceeds a limit is
// refused at the member that crosses it.
type loader struct {
	lim   Limits
	t     *tree
	total int64
	n     int // members and links
}

func (l *loader) read(r io.Reader) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("not a gzip file: %w", err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read tar: %w", err)
		}
		if err := l.member(tr, h); err != nil {
			return err
		}
	}
}

func (l *loader) member(tr *tar.Reader, h *tar.Header) error {
	name := strings.TrimSuffix(h.Name, "/")
	if err := checkName(name); err != nil {
		return err
	}
	if err := l.count(name); err != nil {
		return err
	}
	switch h.Typeflag {
	case tar.TypeDir:
		return l.addDir(name)
	case tar.TypeReg:
	default:
		return fmt.Errorf("member %q is not a regular file or directory (type %q): refusing", h.Name, h.Typeflag)
	}
	if h.Size < 0 || h.Size > l.lim.MaxFileBytes {
		return fmt.Errorf("member %q is %d bytes, over the %d-byte limit for one member (%s; the largest member of a real capture is a log tail, at most --max-log-bytes): refusing",
			h.Name, h.Size, l.lim.MaxFileBytes, units.Bytes(uint64(l.lim.MaxFileBytes)))
	}
	if l.total += h.Size; l.total > l.lim.MaxTotalBytes {
		return fmt.Errorf("members add up to more than %d bytes (%s) uncompressed: refusing; %s",
			l.lim.MaxTotalBytes, units.Bytes(uint64(l.lim.MaxTotalBytes)), realCapture)
	}
	if l.t.taken(name) {
		return fmt.Errorf("member %q: duplicate member (a file or directory of that name is already in the bundle): refusing", h.Name)
	}
	b := make([]byte, h.Size) // exactly: the limits bound what is held
	if _, err := io.ReadFull(tr, b); err != nil {
		return fmt.Errorf("member %q: %w", h.Name, err)
	}
	if err := l.addDir(path.Dir(name)); err != nil {
		return err
	}
	l.t.files[name] = b
	l.t.dirs[parentOf(name)][path.Base(name)] = true
	return nil
}

// count checks the number of members and the depth of a name.
func (l *loader) count(name string) error {
	if l.n++; l.n > l.lim.MaxFiles {
		return fmt.Errorf("more than %d members: refusing; %s", l.lim.MaxFiles, realCapture)
	}
	if d := strings.Count(name, "/") + 1; d > l.lim.MaxDepth {
		return fmt.Errorf("member %q...: %d path components, more than %d: refusing (dbmem's deepest paths have about 12)",
			name[:min(len(name), 64)], d, l.lim.MaxDepth)
	}
	return nil
}

// addDir adds dir and its parents (a directory member, or the directories
// a member's name implies), counting each new one.
func (l *loader) addDir(dir string) error {
	if dir == "." || dir == "" {
		return nil
	}
	if _, ok := l.t.dirs[dir]; ok {
		return nil
	}
	if _, f := l.t.files[dir]; f {
		return fmt.Errorf("member %q is both a file and a directory: refusing", dir)
	}
	if _, lk := l.t.links[dir]; lk {
		return fmt.Errorf("member %q is both a link and a directory: refusing", dir)
	}
	if len(l.t.dirs) > l.lim.MaxDirs {
		return fmt.Errorf("the member names make more than %d directories: refusing; %s", l.lim.MaxDirs, realCapture)
	}
	if err := l.addDir(path.Dir(dir)); err != nil {
		return err
	}
	l.t.dirs[dir] = map[string]bool{}
	l.t.dirs[parentOf(dir)][path.Base(dir)] = true
	return nil
}

// addLink adds a recorded /proc link.
func (l *loader) addLink(name, target string) error {
	if err := checkLink(name, target); err != nil {
		return err
	}
	if err := l.count(name); err != nil {
		return err
	}
	if l.t.taken(name) {
		return fmt.Errorf("links.json: %s: file exists in the bundle", name)
	}
	if err := l.addDir(path.Dir(name)); err != nil {
		return fmt.Errorf("links.json: %w", err)
	}
	l.t.links[name] = target
	l.t.dirs[parentOf(name)][path.Base(name)] = true
	return nil
}

func parentOf(name string) string {
	if d := path.Dir(name); d != "." {
		return d
	}
	return ""
}
