package linux

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// maxLinks is the kernel's bound on links followed in one path.
const maxLinks = 40

// OpenAs opens name (an absolute path, resolved under root) for reading as
// the account a could, without following links out of where they belong:
//
//   - each component is opened with O_NOFOLLOW, from the one before;
//   - a symbolic link is followed only when root owns it (a link the
//     database account made is refused: it points wherever that account
//     wants, /etc/shadow included), and an absolute target starts again at
//     root, so resolution never leaves root;
//   - every directory on the way must be searchable by a, and the file
//     must be a regular file (or, with dir, a directory) that a may read;
//   - the file is opened O_NONBLOCK: a FIFO in its place cannot block.
//
// A nil a reads as root (no permission check; links still need root).
func OpenAs(root, name string, a *Account, dir bool) (*os.File, error) {
	rootFD, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	w := &walker{root: rootFD, a: a, name: name}
	defer w.close()
	return w.open(dir)
}

// walker resolves a path one component at a time.
type walker struct {
	root    int
	a       *Account
	name    string
	stack   []int // the directories entered, innermost last
	links   int
	lastDir int // the directory of the final component
	last    string
}

func (w *walker) close() {
	for _, fd := range w.stack {
		unix.Close(fd)
	}
	unix.Close(w.root)
}

func (w *walker) cur() int {
	if len(w.stack) == 0 {
		return w.root
	}
	return w.stack[len(w.stack)-1]
}

func (w *walker) fail(err error, why string) error {
	if why != "" {
		err = fmt.Errorf("%w: %s", err, why)
	}
	return &fs.PathError{Op: "open", Path: w.name, Err: err}
}

func (w *walker) open(dir bool) (*os.File, error) {
	if err := w.search(w.root, "/"); err != nil {
		return nil, err
	}
	comps := split(w.name)
	for len(comps) > 0 {
		c := comps[0]
		comps = comps[1:]
		next, err := w.step(c, len(comps) == 0)
		if err != nil {
			return nil, err
		}
		comps = append(next, comps...)
	}
	if w.last == "" {
		return nil, w.fail(syscall.EISDIR, "the root itself")
	}
	return w.final(dir)
}

// step enters component c; for a link it returns the target's components.
func (w *walker) step(c string, last bool) ([]string, error) {
	if c == ".." {
		if n := len(w.stack); n > 0 {
			unix.Close(w.stack[n-1])
			w.stack = w.stack[:n-1]
		}
		w.last = ""
		return nil, nil
	}
	fd, err := unix.Openat(w.cur(), c, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, w.fail(err, "")
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, w.fail(err, "")
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		defer unix.Close(fd)
		return w.link(fd, c, &st)
	case unix.S_IFDIR:
		if !last {
			if err := w.search(fd, c); err != nil {
				unix.Close(fd)
				return nil, err
			}
			w.stack = append(w.stack, fd)
			return nil, nil
		}
	}
	unix.Close(fd)
	if !last {
		return nil, w.fail(syscall.ENOTDIR, c+" is not a directory")
	}
	w.lastDir, w.last = w.cur(), c
	return nil, nil
}

// link follows a root-owned link: its target's components replace it.
func (w *walker) link(fd int, c string, st *unix.Stat_t) ([]string, error) {
	if st.Uid != 0 {
		return nil, w.fail(syscall.EACCES, fmt.Sprintf("%s is a symbolic link owned by uid %d; only root's links are followed in a path a database names", c, st.Uid))
	}
	if w.links++; w.links > maxLinks {
		return nil, w.fail(syscall.ELOOP, "")
	}
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(fd, "", buf)
	if err != nil {
		return nil, w.fail(err, "")
	}
	target := string(buf[:n])
	if strings.HasPrefix(target, "/") {
		for _, d := range w.stack {
			unix.Close(d)
		}
		w.stack = nil
	}
	return split(target), nil
}

// search checks that the account may search the directory fd.
func (w *walker) search(fd int, name string) error {
	if w.a == nil {
		return nil
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return w.fail(err, "")
	}
	if !w.a.may(&st, 1) {
		return w.fail(syscall.EACCES, fmt.Sprintf("directory %s is not searchable by the database account (%s)", name, w.a))
	}
	return nil
}

// final opens the last component for reading and checks what it is.
func (w *walker) final(dir bool) (*os.File, error) {
	flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	if dir {
		flags |= unix.O_DIRECTORY
	}
	fd, err := unix.Openat(w.lastDir, w.last, flags, 0)
	if err != nil {
		return nil, w.fail(err, "")
	}
	f := os.NewFile(uintptr(fd), w.name)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, w.fail(err, "")
	}
	isDir, isReg := st.Mode&syscall.S_IFMT == syscall.S_IFDIR, st.Mode&syscall.S_IFMT == syscall.S_IFREG
	switch {
	case dir && !isDir, !dir && !isReg:
		f.Close()
		return nil, w.fail(syscall.EINVAL, "not a regular file")
	case w.a != nil && !w.a.may(&st, 4):
		f.Close()
		return nil, w.fail(syscall.EACCES, fmt.Sprintf("owned by uid %d, mode %04o: not readable by the database account (%s), and dbmem reads what a database names only with that account's rights", st.Uid, st.Mode&0o7777, w.a))
	case dir && w.a != nil && !w.a.may(&st, 1):
		f.Close()
		return nil, w.fail(syscall.EACCES, "directory not searchable by the database account")
	}
	return f, nil
}

// split cuts a path into its components, keeping ".." (step resolves it
// against the directories entered, never above root).
func split(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// rootDir is Root, "/" when unset.
func (fs FS) rootDir() string {
	if fs.Root == "" {
		return "/"
	}
	return fs.Root
}

// relRoot is p relative to Root, as an absolute host path.
func (fs FS) relRoot(p string) string {
	rel, _ := filepath.Rel(fs.rootDir(), p)
	return "/" + rel
}

// underRoot reports whether p is a host file (under Root, not under the
// procfs or sysfs roots).
func (fs FS) underRoot(p string) bool {
	for _, r := range []string{fs.Proc, fs.Sys} {
		if rel, err := filepath.Rel(r, p); r != "" && err == nil && !strings.HasPrefix(rel, "..") {
			return false
		}
	}
	rel, err := filepath.Rel(fs.rootDir(), p)
	return err == nil && !strings.HasPrefix(rel, "..")
}

// readAs reads a host file as fs.Account could.
func (fs FS) readAs(p string) ([]byte, error) {
	f, err := OpenAs(fs.rootDir(), fs.relRoot(p), fs.Account, false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Open opens a file for reading: as Account could when it is set and the
// file is under Root (OpenAs), else plainly.
func (fs FS) Open(p string) (*os.File, error) {
	if fs.Account != nil && fs.Files == nil && fs.underRoot(p) {
		return OpenAs(fs.rootDir(), fs.relRoot(p), fs.Account, false)
	}
	// O_NONBLOCK, as OpenAs: a FIFO standing in for a log does not block
	// the open waiting for a writer.
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// AccountOf is the account the files of process pid are read as on the
// live host (nil elsewhere: a fixture or a bundle keeps no owners); an
// account that cannot be read is "nobody", who reads only what everyone
// may.
func AccountOf(fs FS, pid int) *Account {
	if !fs.IsLive() {
		return nil
	}
	if a, err := ReadAccount(fs, pid); err == nil {
		return a
	}
	return &Account{UID: 65534, GIDs: []uint32{65534}}
}
