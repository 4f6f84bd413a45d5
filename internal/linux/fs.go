package linux

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// FS names the roots dbmem reads the kernel's view from. A live host uses
// DefaultFS; a captured bundle or a test fixture is read by pointing the roots
// at its directories.
type FS struct {
	// Proc is the procfs mount, "/proc" on a live host.
	Proc string
	// Sys is the sysfs mount, "/sys" on a live host.
	Sys string
	// Root is where other host files (data directories, config files) are
	// found, "/" on a live host.
	Root string
	// Tap, when set, sees every file, directory and link read.
	Tap Tap
	// Label, when set, names what the roots hold for people (the bundle a
	// user gave with --from): errors then say "LABEL:/proc/1/status", not
	// the directory it was extracted to.
	Label string
	// Files, when set, is read instead of the file system: a bundle held
	// in memory (internal/bundle), never extracted to disk. The roots are
	// then names inside it.
	Files Files
	// Deadlines, when set, bounds every read (a long-running reader: the
	// exporter, watch).
	Deadlines *Deadlines
	// Account, when set, reads the files under Root (not /proc or /sys) as
	// that account could (OpenAs): the files a database names are read
	// with its rights, and links only root made are followed.
	Account *Account
	// ctx, when set (WithContext), ends the reads: once it is done every
	// read fails at once, so a collection nobody waits for any more (a
	// scrape that timed out) stops at its next read instead of reading
	// the whole host.
	ctx context.Context
}

// WithContext returns fs whose reads fail, without touching the file, once
// ctx is done. A read already running ends as it would have (under
// Deadlines, at its deadline).
func (fs FS) WithContext(ctx context.Context) FS {
	fs.ctx = ctx
	return fs
}

// stopped is the error of a read asked for after fs's context ended.
func (fs FS) stopped() error {
	if fs.ctx == nil {
		return nil
	}
	if err := fs.ctx.Err(); err != nil {
		return fmt.Errorf("not read, the collection was abandoned: %w", err)
	}
	return nil
}

// Files is a read-only tree that stands in for the file system. Errors
// wrap fs.ErrNotExist and the like, as os's do, so IsGone and IsDenied
// work the same.
type Files interface {
	ReadFile(path string) ([]byte, error)
	ReadDir(path string) ([]string, error)
	Readlink(path string) (string, error)
	Exists(path string) bool
}

// DefaultFS returns the roots of the running host.
func DefaultFS() FS { return FS{Proc: "/proc", Sys: "/sys", Root: "/"} }

// OrDefault is fs, or DefaultFS when fs was left empty (no procfs root):
// every Options' zero value reads the running host.
func (fs FS) OrDefault() FS {
	if fs.Proc == "" {
		return DefaultFS()
	}
	return fs
}

// ProcPath joins elements under the procfs root.
func (fs FS) ProcPath(elem ...string) string {
	return filepath.Join(append([]string{fs.Proc}, elem...)...)
}

// SysPath joins elements under the sysfs root.
func (fs FS) SysPath(elem ...string) string {
	return filepath.Join(append([]string{fs.Sys}, elem...)...)
}

// HostPath maps an absolute host path (as the kernel or a process reports it)
// to where it can be read under Root.
func (fs FS) HostPath(abs string) string {
	root := fs.Root
	root = cmp.Or(root, "/")
	return filepath.Join(root, strings.TrimPrefix(abs, "/"))
}

// IsLive reports whether the roots are those of the running host, so that
// things only a live host has (sockets, signals) may be used.
func (fs FS) IsLive() bool {
	return fs.Files == nil && filepath.Clean(fs.Proc) == "/proc" && filepath.Clean(fs.Sys) == "/sys" &&
		(fs.Root == "" || filepath.Clean(fs.Root) == "/")
}

// ReadFile reads a whole file under one of the roots; the error names the
// path once (Display). Kernel files report a size of 0, so os.ReadFile's
// growth strategy is what we want. With a Tap the content is recorded. A
// FIFO, device or socket is refused without blocking (openNoBlock).
func (fs FS) ReadFile(path string) ([]byte, error) {
	read := fs.readPlain
	switch {
	case fs.Files != nil:
		read = fs.Files.ReadFile
	case fs.Account != nil && fs.underRoot(path):
		read = fs.readAs
	case fs.kernelFile(path):
		read = func(p string) ([]byte, error) { return readKernelFile(p, 0) }
	}
	var b []byte
	err := fs.bounded(path, func() (err error) { b, err = read(path); return err })
	if err != nil {
		return nil, fs.pathError("read", path, err)
	}
	if fs.Tap != nil {
		fs.Tap.File(path, b)
	}
	return b, nil
}

// ReadDir lists the names in dir.
func (fs FS) ReadDir(dir string) ([]string, error) {
	if err := fs.stopped(); err != nil {
		return nil, fs.pathError("list", dir, err)
	}
	if fs.Files != nil {
		names, err := fs.Files.ReadDir(dir)
		if err != nil {
			return nil, fs.pathError("list", dir, err)
		}
		if fs.Tap != nil {
			fs.Tap.Dir(dir, names)
		}
		return names, nil
	}
	var names []string
	open := os.Open
	if fs.Account != nil && fs.underRoot(dir) {
		open = func(p string) (*os.File, error) { return OpenAs(fs.rootDir(), fs.relRoot(p), fs.Account, true) }
	}
	err := fs.bounded(dir, func() error {
		f, err := open(dir)
		if err != nil {
			return err
		}
		defer f.Close()
		names, err = f.Readdirnames(-1)
		return err
	})
	if err != nil {
		return nil, fs.pathError("list", dir, err)
	}
	if fs.Tap != nil {
		fs.Tap.Dir(dir, names)
	}
	return names, nil
}

// Readlink reads a symlink (a process's cwd or exe).
func (fs FS) Readlink(path string) (string, error) {
	readlink := os.Readlink
	if fs.Files != nil {
		readlink = fs.Files.Readlink
	}
	var s string
	err := fs.bounded(path, func() (err error) { s, err = readlink(path); return err })
	if err != nil {
		return "", fs.pathError("readlink", path, err)
	}
	if fs.Tap != nil {
		fs.Tap.Link(path, s)
	}
	return s, nil
}

// bounded runs read under the Deadlines, if any, unless fs's context
// ended.
func (fs FS) bounded(path string, read func() error) error {
	if err := fs.stopped(); err != nil {
		return err
	}
	if fs.Deadlines == nil || !fs.bounds(path) {
		return read()
	}
	return fs.Deadlines.do(path, fs.deadlineKey(path), read)
}

// Exists reports whether path exists (for optional files).
func (fs FS) Exists(path string) bool {
	if fs.stopped() != nil {
		return false
	}
	if fs.Files != nil {
		return fs.Files.Exists(path)
	}
	if fs.Account != nil && fs.underRoot(path) {
		for _, dir := range []bool{false, true} {
			if f, err := OpenAs(fs.rootDir(), fs.relRoot(path), fs.Account, dir); err == nil {
				f.Close()
				return true
			}
		}
		return false
	}
	_, err := os.Stat(path)
	return err == nil
}

// Display is path as people should see it: with a Label, the path on the
// captured host after the label ("dump.tar.gz:/proc/1/status"); else path.
func (fs FS) Display(path string) string {
	if fs.Label == "" {
		return path
	}
	for _, r := range []struct{ root, as string }{{fs.Proc, "/proc"}, {fs.Sys, "/sys"}, {fs.Root, "/"}} {
		if r.root == "" {
			continue
		}
		if rel, err := filepath.Rel(r.root, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return fs.Label + ":" + filepath.Join(r.as, rel)
		}
	}
	return fs.Label + ":" + path
}

// pathError says "op path: cause" once: the os package's own error already
// names the path, which would repeat it ("readlink /proc/1/cwd: readlink
// /proc/1/cwd: ..."), so only its cause is kept. errors.Is still sees the
// cause (fs.ErrNotExist, fs.ErrPermission).
func (fs FS) pathError(op, path string, err error) error {
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s %s: %w", op, fs.Display(path), err)
}

// Tap records what the readers read, so a capture holds exactly the files
// a report needs. Implementations must be safe for concurrent use.
type Tap interface {
	File(path string, data []byte)
	Dir(path string, names []string)
	Link(path, target string)
}

// IsGone reports whether err means the process went away while we read it
// (its /proc directory vanished, or the kernel answered ESRCH). Such a process
// is skipped, not reported as an error.
func IsGone(err error) bool {
	return errors.Is(err, iofs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// IsDenied reports whether err is a permission problem (not root, or
// hidepid, or a ptrace check on another user's process).
func IsDenied(err error) bool {
	return errors.Is(err, iofs.ErrPermission)
}

// readParsed reads the file at path and parses it; a parse error names
// the file.
func readParsed[T any](fs FS, path string, parse func(io.Reader) (T, error)) (T, error) {
	b, err := fs.ReadFile(path)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := parse(bytes.NewReader(b))
	if err != nil {
		return v, fmt.Errorf("parse %s: %w", fs.Display(path), err)
	}
	return v, nil
}
