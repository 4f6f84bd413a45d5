package capture

import (
	"path/filepath"
	"strconv"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
)

// Tree returns the recorded files and links keyed by their path in a tree
// written by WriteTree ("proc/1/stat", "sys/...", "root/etc/..."), with
// slashes as separators. src are the roots the files were read from.
func (r *Recorder) Tree(src linux.FS) (files map[string][]byte, links map[string]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	files = make(map[string][]byte, len(r.files))
	links = make(map[string]string, len(r.links))
	for p, data := range r.files {
		files[filepath.ToSlash(treePath(p, src))] = data
	}
	for p, target := range r.links {
		links[filepath.ToSlash(treePath(p, src))] = target
	}
	return files, links
}

// Answers returns the recorded answers by postmaster PID.
func (r *LiveRecorder) Answers() map[int]postgres.Live {
	seen, _ := r.got.copies()
	return seen
}

// Failures returns why asking failed, by postmaster PID.
func (r *LiveRecorder) Failures() map[int]string {
	_, failed := r.got.copies()
	return failed
}

// LiveErrorPath is where the failure for a postmaster PID is kept:
// "live/<pid>.error".
func LiveErrorPath(pid int) string { return "live/" + strconv.Itoa(pid) + ".error" }

// LivePath is where the answer for a postmaster PID lives in a tree:
// "live/<pid>.json".
func LivePath(pid int) string { return "live/" + strconv.Itoa(pid) + ".json" }
