package hostchange

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// MaxStateBytes bounds a journal read: dbmem's largest (apply's, with a
// plan's settings and notes) is a few KiB.
const MaxStateBytes = 4 << 20

// OpenState opens a state file (a lock, a journal) in a directory
// StateDir accepts, without following a link at its end and without
// blocking on a FIFO, and refuses it unless it is a regular file the user
// running dbmem owns that no group or other user may write.
func OpenState(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if err := CheckDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link: dbmem follows no link to its state; fix: remove it after checking where it points", path)
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = badStateFile(path, st)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func badStateFile(path string, st fs.FileInfo) error {
	s, ok := st.Sys().(*syscall.Stat_t)
	me := uint32(os.Geteuid())
	switch {
	case !ok || !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%s): dbmem refuses it as its state; fix: remove it after checking what it is", path, st.Mode().Type())
	case s.Uid != me:
		return fmt.Errorf("%s is owned by uid %d, not %d: dbmem acts only on state it wrote itself; fix: check it, then remove it", path, s.Uid, me)
	case st.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s has mode %04o (writable by its group or everyone): dbmem acts only on state no one else could write; fix: check it, then remove it",
			path, st.Mode().Perm())
	}
	return nil
}

// ReadState reads a state file through OpenState; ok is false when there
// is none. A file over MaxStateBytes is refused.
func ReadState(path string) (b []byte, ok bool, err error) {
	f, err := OpenState(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	b, err = io.ReadAll(io.LimitReader(f, MaxStateBytes+1))
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > MaxStateBytes {
		return nil, false, fmt.Errorf("%s is over %d bytes: not a journal dbmem wrote", path, MaxStateBytes)
	}
	return b, true, nil
}
