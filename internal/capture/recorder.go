package capture

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dbmem/dbmem/internal/linux"
)

// Recorder is a linux.Tap that keeps everything read.
type Recorder struct {
	mu    sync.Mutex
	files map[string][]byte
	links map[string]string
	// changed counts the files read again with another content.
	changed map[string]int
	// frozen: files already recorded keep their content (Freeze).
	frozen bool
	// listed are the first listings of directories read.
	listed map[string][]string
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{files: map[string][]byte{}, links: map[string]string{}, changed: map[string]int{}, listed: map[string][]string{}}
}

// File records a file's content. A file read again replaces what was
// recorded (a reader that reads a file twice uses the later read, as
// /proc/PID/stat is read first to find processes, then for their counters),
// until Freeze.
func (r *Recorder) File(path string, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, seen := r.files[path]
	if seen && !bytes.Equal(old, data) {
		r.changed[path]++
	}
	if !seen || !r.frozen {
		r.files[path] = append([]byte(nil), data...)
	}
}

// procPID returns the PID directory a path is under, if any.
func procPID(path, proc string) (string, bool) {
	rel, ok := under(path, proc)
	if !ok {
		return "", false
	}
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	if first == "" || strings.Trim(first, "0123456789") != "" {
		return "", false
	}
	return first, true
}

// Freeze keeps the files recorded so far as they are: later reads (of other
// readers, after a snapshot) only add files. Then a replay gives the
// snapshot exactly what it read.
func (r *Recorder) Freeze() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.frozen = true
}

// Changed returns the files that were read more than once and changed
// between the reads (counters of a busy host): the readers of one moment
// saw different contents, a replay gives them all the first.
func (r *Recorder) Changed() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(maps.Keys(r.changed))
}

// Dir keeps the first listing of each directory (a directory is recreated
// when a file in it is recorded).
func (r *Recorder) Dir(path string, names []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, seen := r.listed[path]; !seen {
		r.listed[path] = append([]string(nil), names...)
	}
}

// StartedLater returns the PIDs with recorded files that were missing from
// the first listing of the /proc root of src: processes that started while
// the readers ran, which a later reader saw and the first did not.
func (r *Recorder) StartedLater(src linux.FS) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	first, ok := r.listed[src.Proc]
	if !ok {
		return nil
	}
	listed := map[string]bool{}
	for _, n := range first {
		listed[n] = true
	}
	seen := map[int]bool{}
	for p := range r.files {
		if pid, ok := procPID(p, src.Proc); ok && !listed[pid] {
			n, _ := strconv.Atoi(pid)
			seen[n] = true
		}
	}
	out := make([]int, 0, len(seen))
	for pid := range seen {
		out = append(out, pid)
	}
	sort.Ints(out)
	return out
}

// Link records a symlink's target (as File).
func (r *Recorder) Link(path, target string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, seen := r.links[path]; !seen || !r.frozen {
		r.links[path] = target
	}
}

// Paths returns the recorded file paths, sorted.
func (r *Recorder) Paths() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(maps.Keys(r.files))
}

// WriteTree writes the recorded files under dst as proc/, sys/ and root/,
// mapping each path from the roots of src. Use linux.FS{Proc: dst/proc,
// Sys: dst/sys, Root: dst/root} to read it back.
func (r *Recorder) WriteTree(dst string, src linux.FS) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for p, data := range r.files {
		if err := writeFile(filepath.Join(dst, treePath(p, src)), data); err != nil {
			return err
		}
	}
	for p, target := range r.links {
		to := filepath.Join(dst, treePath(p, src))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		os.Remove(to)
		if err := os.Symlink(target, to); err != nil {
			return fmt.Errorf("write %s: %w", to, err)
		}
	}
	return nil
}

// TreePath maps a path as read from the roots src to its path in a tree
// written by WriteTree, with slashes.
func TreePath(p string, src linux.FS) string { return filepath.ToSlash(treePath(p, src)) }

// treePath maps /proc/1/stat to proc/1/stat, /sys/x to sys/x and any other
// path to root/<path>.
func treePath(p string, src linux.FS) string {
	for _, m := range []struct{ root, dir string }{{src.Proc, "proc"}, {src.Sys, "sys"}} {
		if rel, ok := under(p, m.root); ok {
			return filepath.Join(m.dir, rel)
		}
	}
	root := src.Root
	root = cmp.Or(root, "/")
	rel, _ := under(p, root)
	return filepath.Join("root", rel)
}

func under(p, root string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return strings.TrimPrefix(p, "/"), false
	}
	return rel, true
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// TreeFS returns the roots to read a tree written by WriteTree.
func TreeFS(dir string) linux.FS {
	return linux.FS{Proc: filepath.Join(dir, "proc"), Sys: filepath.Join(dir, "sys"), Root: filepath.Join(dir, "root")}
}

// Keep drops every recorded file and link for which keep returns false.
func (r *Recorder) Keep(keep func(path string) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for p := range r.files {
		if !keep(p) {
			delete(r.files, p)
		}
	}
	for p := range r.links {
		if !keep(p) {
			delete(r.links, p)
		}
	}
}
