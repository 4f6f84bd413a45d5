package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/dbmem/dbmem/internal/linux"
)

// Recorder is a linux.Tap that keeps everything read.
type Recorder struct {
	mu    sync.Mutex
	files map[string][]byte
	links map[string]string
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{files: map[string][]byte{}, links: map[string]string{}}
}

// File records a file's content.
func (r *Recorder) File(path string, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files[path] = append([]byte(nil), data...)
}

// Dir is ignored: a directory is recreated when a file in it is recorded.
func (r *Recorder) Dir(string, []string) {}

// Link records a symlink's target.
func (r *Recorder) Link(path, target string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.links[path] = target
}

// Paths returns the recorded file paths, sorted.
func (r *Recorder) Paths() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.files))
	for p := range r.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
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

// treePath maps /proc/1/stat to proc/1/stat, /sys/x to sys/x and any other
// path to root/<path>.
func treePath(p string, src linux.FS) string {
	for _, m := range []struct{ root, dir string }{{src.Proc, "proc"}, {src.Sys, "sys"}} {
		if rel, ok := under(p, m.root); ok {
			return filepath.Join(m.dir, rel)
		}
	}
	root := src.Root
	if root == "" {
		root = "/"
	}
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
