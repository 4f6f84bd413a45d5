package safeexec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// LookPath finds name in Dirs (an absolute name is taken as is) and, when
// dbmem runs as root, refuses it unless only root could have changed it
// (RootOnly). A program in none of Dirs is an error wrapping
// exec.ErrNotFound, as exec.LookPath's.
func LookPath(name string) (string, error) {
	if filepath.IsAbs(name) {
		return checked(name)
	}
	if strings.ContainsRune(name, '/') {
		return "", fmt.Errorf("program %q: a bare name or an absolute path, not a relative path", name)
	}
	for _, d := range Dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return checked(p)
		}
	}
	return "", &exec.Error{Name: name, Err: fmt.Errorf("%w in %s", exec.ErrNotFound, strings.Join(Dirs, ":"))}
}

func checked(p string) (string, error) {
	if os.Geteuid() != 0 {
		return p, nil
	}
	if err := RootOnly(p); err != nil {
		return "", fmt.Errorf("program %s: %w: root runs only programs that only root can change", p, err)
	}
	return p, nil
}

// RootOnly checks the absolute path p, as given and after its links: every
// directory on the way is root's and writable by root alone (or sticky),
// every link root's, and the program a root-owned regular file that
// neither its group nor others may write. Any other account could swap
// the program for its own code, which root would then run.
func RootOnly(p string) error {
	if !filepath.IsAbs(p) {
		return fmt.Errorf("%s is not an absolute path", p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return err
	}
	for _, q := range []string{p, real} {
		if err := rootsAlone(q); err != nil {
			return err
		}
	}
	return nil
}

// rootsAlone checks every component of p from the root down with lstat.
func rootsAlone(p string) error {
	parts := strings.Split(strings.TrimPrefix(filepath.Clean(p), "/"), "/")
	cur := "/"
	for i := -1; i < len(parts); i++ {
		if i >= 0 {
			cur = filepath.Join(cur, parts[i])
		}
		fi, err := os.Lstat(cur)
		if err != nil {
			return err
		}
		if err := rootsEntry(cur, fi, i == len(parts)-1); err != nil {
			return err
		}
	}
	return nil
}

// rootsEntry checks one component.
func rootsEntry(path string, fi fs.FileInfo, last bool) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return errors.New(path + ": no owner")
	}
	mode := fi.Mode()
	switch {
	case st.Uid != 0:
		return fmt.Errorf("%s is owned by uid %d, not root", path, st.Uid)
	case mode&fs.ModeSymlink != 0:
		return nil // root's link; its target is checked as the resolved path
	case mode.IsDir() && !last:
		if writableByOthers(mode, st.Gid) && mode&fs.ModeSticky == 0 {
			return fmt.Errorf("directory %s may be written by others (mode %04o, gid %d)", path, mode.Perm(), st.Gid)
		}
		return nil
	case last && mode.IsRegular():
		if writableByOthers(mode, st.Gid) {
			return fmt.Errorf("%s may be written by others (mode %04o, gid %d)", path, mode.Perm(), st.Gid)
		}
		return nil
	}
	return fmt.Errorf("%s is a %v, not a program in a directory", path, mode.Type())
}

// writableByOthers: others may write, or a group other than root's.
func writableByOthers(mode fs.FileMode, gid uint32) bool {
	return mode&0o002 != 0 || mode&0o020 != 0 && gid != 0
}
