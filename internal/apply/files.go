package apply

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/render"
)

// FileChange is one file to write (or, in a rollback, to remove).
type FileChange struct {
	render.File
	Target string `json:"target"` // where it is written: FilesRoot + Path
	Exists bool   `json:"exists"`
	Old    string `json:"old,omitempty"` // current content
	// Remove deletes the file instead of writing Content (rollback of a
	// file apply created).
	Remove bool `json:"remove,omitempty"`
	// Dirs are directories to remove after the file when they are empty
	// (those the run being undone created).
	Dirs []string `json:"dirs,omitempty"`
	// Mode, UID and GID are what the written file gets: those of the file
	// it replaces, or of a restored backup; a new file gets File.Mode and
	// the owner of its directory.
	UID, GID int `json:"-"`
}

// Noop reports whether the file already holds the content.
func (f FileChange) Noop() bool {
	if f.Remove {
		return !f.Exists
	}
	return f.Exists && f.Old == f.Content
}

// planFiles renders the files and reads what they would replace.
func planFiles(settings []finding.Setting, o Options) ([]FileChange, error) {
	files, err := render.Files(settings, o.Render)
	if err != nil {
		return nil, err
	}
	var out []FileChange
	for _, f := range files {
		fc := FileChange{File: f, Target: o.hostPath(f.Path), UID: -1, GID: -1}
		if err := fc.readCurrent(); err != nil {
			return nil, err
		}
		out = append(out, fc)
	}
	return out, nil
}

// readCurrent reads the file being replaced: its content, mode and owner.
// A symbolic link is refused: replacing it would turn it into a file, and
// following it would write wherever its owner points it.
func (f *FileChange) readCurrent() error {
	if err := rootLinksOnly(filepath.Dir(f.Target)); err != nil {
		return err
	}
	st, err := os.Lstat(f.Target)
	if errors.Is(err, fs.ErrNotExist) {
		f.UID, f.GID = dirOwner(filepath.Dir(f.Target))
		return nil
	}
	if err != nil {
		return err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		to, _ := os.Readlink(f.Target)
		return fmt.Errorf("%s is a symbolic link (to %s): dbmem does not replace a link with a file, nor write through it; "+
			"replace the link with the file it points to, or remove it, and run again", f.Target, to)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file: dbmem will not replace it", f.Target)
	}
	b, err := os.ReadFile(f.Target)
	if err != nil {
		return err
	}
	f.Exists, f.Old, f.Mode = true, string(b), st.Mode().Perm()
	f.UID, f.GID = owner(st)
	return nil
}

// rootLinksOnly refuses a directory reached through a link root did not
// make (a conf.d the database account replaced with a link to /etc/cron.d):
// the nearest existing directory on the path is resolved following only
// root's links (linux.OpenAs).
func rootLinksOnly(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		f, err := linux.OpenAs("/", d, nil, true)
		if err == nil {
			f.Close()
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) || d == filepath.Dir(d) {
			return fmt.Errorf("%s: %w: dbmem writes only through links root made", dir, err)
		}
	}
}

func owner(st fs.FileInfo) (int, int) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(s.Uid), int(s.Gid)
	}
	return -1, -1
}

// dirOwner is the owner of the nearest existing directory (a new conf.d file
// belongs to postgres, a new /etc file to root).
func dirOwner(dir string) (int, int) {
	for {
		if st, err := os.Stat(dir); err == nil {
			return owner(st)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return -1, -1
		}
		dir = parent
	}
}

// backupName is the timestamped copy of path next to it. Its name ends in
// the run's id, so no *.conf or *.cfg loader (sysctl.d, conf.d, systemd
// drop-ins, grub.d) ever reads it.
func backupName(path, id string) string { return path + ".dbmem-" + id }

// backup keeps the current file as dest: a hard link to the file's inode
// (the rename that follows leaves it untouched: same bytes, mode, owner and
// times), or a copy where links are not possible.
func backup(path, dest string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return "", err
	}
	if err := os.Link(path, dest); err == nil {
		return dest, hostchange.SyncDir(filepath.Dir(dest))
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	uid, gid := owner(st)
	return dest, hostchange.WriteFile(dest, data, st.Mode().Perm(), uid, gid)
}

// mkdirs creates dir and its missing parents (mode 0755, owned like the
// nearest existing parent) and returns the ones it created, outermost first.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		missing = append([]string{d}, missing...)
	}
	uid, gid := dirOwner(dir)
	for _, d := range missing {
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
		if uid >= 0 {
			os.Chown(d, uid, gid)
		}
	}
	return missing, nil
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// verifyFile reads path back and compares it byte for byte.
func verifyFile(path string, want []byte) error {
	got, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read back %s: %w", path, err)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s reads back %d bytes (sha256 %s), not the %d written", path, len(got), sum(got)[:12], len(want))
	}
	return nil
}
