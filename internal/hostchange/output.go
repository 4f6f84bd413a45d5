package hostchange

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// WriteOutput writes a file the user asked for (an HTML page, a bundle,
// plan --out-dir's files) through File.Write, after refusing a path that
// is a symbolic link (its owner chose where it points: the rename would
// not follow it, but the user asked for a file there, not for a link
// replaced), that is not a regular file, or that another user owns (root
// never writes into another user's file, nor replaces it). A new file
// gets mode; an existing one of the user keeps its own. Temporary files a
// killed run left for this path are removed first.
func WriteOutput(path string, mode fs.FileMode, fill func(io.Writer) error) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink != 0:
		to, _ := os.Readlink(path)
		return fmt.Errorf("%s is a symbolic link (to %s): dbmem does not write through a link nor replace it; remove it or choose another path", path, to)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%s): choose another path", path, st.Mode().Type())
	case !ownFile(st):
		return fmt.Errorf("%s belongs to uid %d: dbmem does not write into a file another user owns; remove it or choose another path", path, ownerOf(path))
	default:
		mode = st.Mode().Perm()
	}
	RemoveTemps(filepath.Dir(path), filepath.Base(path))
	return File{Path: path, Mode: mode, UID: -1, GID: -1}.Write(fill)
}

// OutputDir makes dir/rel's directories for an output tree (plan
// --out-dir): dir itself and every directory below it must be a directory
// owned by the user running dbmem or by root, reached through no other
// user's link, so that no other user can swap one for a link to /etc
// between the check and the write; missing ones are created, mode 0755.
// It returns dir/rel.
func OutputDir(dir, rel string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cur := filepath.Clean(dir)
	if err := outputDirOK(cur); err != nil {
		return "", err
	}
	for _, c := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		if c == "" || c == "." {
			continue
		}
		if c == ".." {
			return "", fmt.Errorf("%s: .. in an output path", rel)
		}
		cur = filepath.Join(cur, c)
		if err := os.Mkdir(cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		if err := outputDirOK(cur); err != nil {
			return "", err
		}
	}
	return cur, nil
}

func outputDirOK(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if uid := ownerOf(dir); st.Mode()&fs.ModeSymlink != 0 && uid != os.Geteuid() && uid != 0 {
		to, _ := os.Readlink(dir)
		return fmt.Errorf("%s is a symbolic link (to %s) of uid %d: dbmem does not write an output tree through another user's link; choose another directory", dir, to, uid)
	}
	if st, err = os.Stat(dir); err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if s, ok := st.Sys().(*syscall.Stat_t); ok && s.Uid != uint32(os.Geteuid()) && s.Uid != 0 {
		return fmt.Errorf("%s belongs to uid %d: dbmem does not write an output tree into another user's directory (they could swap a directory in it for a link); "+
			"choose a directory you own", dir, s.Uid)
	}
	return nil
}
