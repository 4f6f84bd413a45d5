package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// sidecars are the files SQLite keeps next to a database: the write-ahead
// log, its shared-memory index and the rollback journal.
var sidecars = []string{"-wal", "-shm", "-journal"}

// historyFile is a history file checked before SQLite opens it.
type historyFile struct {
	path  string      // absolute, its directory's links resolved
	isNew bool        // empty: SQLite will create its tables
	info  os.FileInfo // what was checked, to compare with what SQLite opened
}

// checkPath makes sure SQLite opens a file of the user's own, by its own
// name, in a directory no other user can change things in, and returns
// it. path is a file name, never an SQLite URI: '?' and '#' are part of
// the name. Each directory on the way (links resolved) must belong to
// root or to the user, and be writable by no one else unless it is
// sticky (/tmp), where no one else may rename or remove the user's files.
// The file itself is never a symbolic link, and belongs to the user: one
// another user owns is refused, even for reading (a reader of a history
// writes its -shm index). With create, a missing file is created (mode
// 0600). SQLite's files next to it (-wal, -shm, -journal) that exist must
// be the user's plain files too (claimSidecars creates them before
// SQLite would).
func checkPath(path string, create bool) (historyFile, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return historyFile{}, fmt.Errorf("history file %s: %w", path, err)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return historyFile{}, fmt.Errorf("history file %s: its directory: %w", path, err)
	}
	if err := checkDirs(dir); err != nil {
		return historyFile{}, fmt.Errorf("history file %s: %w", path, err)
	}
	f := historyFile{path: filepath.Join(dir, filepath.Base(abs))}
	if f.info, err = openOwn(f.path, create); err != nil {
		return historyFile{}, err
	}
	f.isNew = f.info.Size() == 0
	for _, s := range sidecars {
		if err := checkSidecar(f.path+s, false); err != nil {
			return historyFile{}, err
		}
	}
	return f, nil
}

// claimSidecars creates the -wal and -shm files of a WAL database (or of
// one that will be) before SQLite does, as the user's, mode 0600: no one
// else can put a file of theirs, or a link, there first. SQLite removes
// them when the last connection closes.
func (f historyFile) claimSidecars() error {
	for _, s := range []string{"-wal", "-shm"} {
		if err := checkSidecar(f.path+s, true); err != nil {
			return err
		}
	}
	return nil
}

// isWAL reports whether the file's header says it is a WAL database (file
// format versions 2 at bytes 18 and 19).
func isWAL(head []byte) bool {
	return len(head) >= 20 && head[18] == 2 && head[19] == 2
}

// checkDirs checks every directory from / down to dir (links resolved).
func checkDirs(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Lstat(d)
		if err != nil {
			return err
		}
		uid, gid := owner(st)
		m := st.Mode()
		switch {
		case uid != 0 && uid != uint32(os.Geteuid()):
			return fmt.Errorf("directory %s belongs to uid %d: that user could replace the history file or its journal; record into a directory of root's or yours, such as /var/lib/dbmem", d, uid)
		case m&os.ModeSticky == 0 && (m&0o002 != 0 || m&0o020 != 0 && gid != 0):
			return fmt.Errorf("directory %s (mode %04o) is writable by other users, who could replace the history file or its journal; record into a directory only root and you can write, such as /var/lib/dbmem", d, m.Perm())
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// openOwn opens path without following a link (creating it, mode 0600,
// when create is set and it is missing) and checks it is the user's plain
// file with one name.
func openOwn(path string, create bool) (os.FileInfo, error) {
	flags := os.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	if create {
		flags = os.O_RDWR | os.O_CREATE | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if st, lerr := os.Lstat(path); err != nil && lerr == nil && st.Mode()&os.ModeSymlink != 0 {
		// ELOOP; EACCES for O_CREAT on another user's link in a sticky directory
		target, _ := os.Readlink(path)
		return nil, fmt.Errorf("history file %s is a symbolic link (to %s): dbmem opens a history only by its own name, never through a link; name the file itself", path, target)
	}
	if err != nil {
		return nil, fmt.Errorf("history file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("history file: %w", err)
	}
	return st, ownPlainFile(path, st)
}

// checkSidecar checks SQLite's file next to the history: missing (then,
// with create, created here as the user's, so that no one else can put
// one there first), or the user's plain file.
func checkSidecar(path string, create bool) error {
	if create {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if err == nil {
			return f.Close()
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("history file: %w", err)
		}
	}
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("history file: %w", err)
	}
	if st.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		return fmt.Errorf("%s is a symbolic link (to %s): SQLite would write the history's journal there; remove it", path, target)
	}
	return ownPlainFile(path, st)
}

// ownPlainFile refuses a file that is not a regular file of the user's
// with one name.
func ownPlainFile(path string, st os.FileInfo) error {
	uid, _ := owner(st)
	nlink := uint64(1)
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		nlink = uint64(s.Nlink)
	}
	switch {
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%s)", path, st.Mode().Type())
	case uid != uint32(os.Geteuid()):
		return fmt.Errorf("%s belongs to uid %d, not to you (uid %d): dbmem never writes into another user's file, and reading a history writes its -shm index; run dbmem as that user, or copy the file", path, uid, os.Geteuid())
	case nlink > 1:
		return fmt.Errorf("%s has %d names (hard links): writing it would change the other ones too; record into a new file", path, nlink)
	}
	return nil
}

func owner(st os.FileInfo) (uid, gid uint32) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Uid, s.Gid
	}
	return 0, 0
}

// uri is SQLite's URI for the file with the query: the path is
// percent-encoded, so a '?', '#' or '%' in a file name is a character of
// the name, never the start of parameters.
func (f historyFile) uri(query string) string {
	var b strings.Builder
	b.WriteString("file:")
	for i := 0; i < len(f.path); i++ {
		c := f.path[i]
		if c == '/' || c == '-' || c == '.' || c == '_' || c == '~' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String() + "?" + query
}

// sameAsOpened checks that the file at f.path is still the one checked
// (nothing replaced it while SQLite opened it).
func (f historyFile) sameAsOpened() error {
	st, err := os.Lstat(f.path)
	if err != nil {
		return fmt.Errorf("history file: %w", err)
	}
	if !os.SameFile(st, f.info) {
		return fmt.Errorf("history file %s was replaced while it was opened", f.path)
	}
	return nil
}
