package pgcluster

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Env is the whole environment of every PostgreSQL program dbmem runs
// (initdb, pg_ctl, postgres, pgbench): nothing of dbmem's own, whose
// environment may hold root's secrets (PGPASSWORD, tokens) and variables
// that change what a program loads (LD_PRELOAD, PGSYSCONFDIR).
func Env() []string {
	return []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", "LANG=C"}
}

// CheckBin refuses to let root run prog from bin unless only root could
// have put it there: the file (after its links) is root's, a regular
// file, and neither its group nor others may write it, and every
// directory on the way (of the path as given and as resolved) is root's
// and writable by root alone, or sticky (/tmp: others cannot replace an
// entry root owns). Any other account could swap the program for its own
// code, which root would then run. When dbmem does not run as root it
// runs programs with its own rights only, and nothing is checked.
func CheckBin(bin, prog string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	p, err := filepath.Abs(filepath.Join(bin, prog))
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return fmt.Errorf("PostgreSQL binary %s: %w", p, err)
	}
	for _, q := range []string{p, real} {
		if err := rootsAlone(q); err != nil {
			return fmt.Errorf("PostgreSQL binary %s: %w: root runs only programs that only root can change (install PostgreSQL from packages, or give --pg-bin a directory root owns)", p, err)
		}
	}
	return nil
}

// rootsAlone checks every component of the absolute path p from the root
// down with lstat: directories root's and not writable by others (unless
// sticky), links root's, the last a root-owned regular file or link.
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
		return fmt.Errorf("%s: no owner", path)
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
