package hostchange

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/dbmem/dbmem/internal/linux"
)

// Where root's dbmem keeps its state: directories only root may write.
const (
	// RuntimeDir holds the locks and the journals of changes that end
	// with a reboot (kernel settings, throwaway clusters, cgroups).
	RuntimeDir = "/run/dbmem"
	// DurableDir holds what must survive a reboot: apply's journals and
	// the backups of its rollbacks.
	DurableDir = "/var/lib/dbmem"
)

// Names of the state files in the runtime directory (RuntimePath).
const (
	// KernelLock is held while kernel settings change: by the lab, the
	// tests (internal/kerneltest) and the benchmarks' huge page pool.
	KernelLock = "kernel.lock"
	// KernelJournal journals the tests' and the pool's changes.
	KernelJournal = "kernel.journal"
	// LabJournal journals a lab run's changes.
	LabJournal = "lab.journal"
	// ApplyLock is held by apply and rollback on the live host.
	ApplyLock = "apply.lock"
)

// RuntimePath is name in the runtime state directory of the user running
// dbmem: RuntimeDir for root. Another user's dbmem (a lab run with
// --modes off, which changes no kernel setting) keeps its own state in
// $XDG_RUNTIME_DIR/dbmem, or else in TMPDIR/dbmem-UID; StateDir refuses
// either when another user made it.
func RuntimePath(name string) string {
	uid := os.Geteuid()
	if uid == 0 {
		return filepath.Join(RuntimeDir, name)
	}
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
		return filepath.Join(x, "dbmem", name)
	}
	return filepath.Join(os.TempDir(), "dbmem-"+strconv.Itoa(uid), name)
}

// StateDir makes dir (mode 0700, with its missing parents) if it does
// not exist, then checks that only the user running dbmem can write in
// it or replace it: CheckDir.
func StateDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("state directory %s: %w", dir, err)
	}
	if err := mkdirs(abs); err != nil {
		return fmt.Errorf("state directory %s: %w; fix: give dbmem a directory it can make where only root (or you) may write", abs, err)
	}
	return CheckDir(abs)
}

// mkdirs creates dir and its missing parents, each mode 0700, each in a
// parent reached through root's links only (nothing is made where another
// user's link points).
func mkdirs(dir string) error {
	if _, err := os.Lstat(dir); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil // CheckDir says what is wrong with it
	}
	parent := filepath.Dir(dir)
	if parent == dir {
		return nil
	}
	if err := mkdirs(parent); err != nil {
		return err
	}
	if parent != "/" {
		p, err := linux.OpenAs("/", parent, nil, true)
		if err != nil {
			return err
		}
		p.Close()
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// CheckDir refuses a state directory another user could change: it is
// reached through links root made only (linux.OpenAs), it is a directory
// the user running dbmem owns that no group or other user may write, and
// every directory above it belongs to root or that user and is writable
// by no one else, or is sticky (/tmp: others cannot rename what is ours).
func CheckDir(dir string) error {
	f, err := linux.OpenAs("/", dir, nil, true)
	if err != nil {
		return fmt.Errorf("state directory %s: %w; fix: give dbmem a directory reached without another user's links", dir, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("state directory %s: %w", dir, err)
	}
	if s, ok := st.Sys().(*syscall.Stat_t); ok && s.Uid == 0 && os.Geteuid() != 0 {
		return fmt.Errorf("state directory %s is root's: run this as root", dir)
	}
	if why := badOwner(st, false); why != "" {
		return fmt.Errorf("state directory %s %s: another user could plant or change dbmem's journals and locks there, so dbmem refuses to use it; "+
			"fix: check what is in it, then remove it (dbmem makes it again, mode 0700) or run chown %d %s && chmod 0700 %s",
			dir, why, os.Geteuid(), dir, dir)
	}
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		real = dir
	}
	return checkAbove(dir, real)
}

// checkAbove checks the directories above real (dir as resolved).
func checkAbove(dir, real string) error {
	for p := filepath.Dir(real); ; p = filepath.Dir(p) {
		st, err := os.Lstat(p)
		if err != nil {
			return fmt.Errorf("state directory %s: %w", dir, err)
		}
		if why := badOwner(st, true); why != "" {
			return fmt.Errorf("state directory %s: the directory %s above it %s: another user could replace dbmem's state, so dbmem refuses to use it; "+
				"fix: keep dbmem's state under directories only root (or you) may write", dir, p, why)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// badOwner says why st is not a directory only the user running dbmem
// (or, above a state directory, root) controls; "" when it is. A sticky
// directory above may be writable by all.
func badOwner(st fs.FileInfo, above bool) string {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok || !st.IsDir() {
		return "is not a directory"
	}
	me := uint32(os.Geteuid())
	switch {
	case s.Uid != me && !(above && s.Uid == 0):
		return fmt.Sprintf("is owned by uid %d, not %d", s.Uid, me)
	case st.Mode().Perm()&0o022 != 0 && !(above && st.Mode()&fs.ModeSticky != 0):
		return fmt.Sprintf("has mode %04o, writable by its group or by everyone", st.Mode().Perm())
	}
	return ""
}
