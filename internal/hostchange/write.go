package hostchange

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// TempMark is in the name of every temporary file WriteFile creates:
// ".NAME" + TempMark + a random suffix, next to NAME.
const TempMark = ".dbmem-tmp-"

// File is a file to replace atomically.
type File struct {
	Path string
	// Mode is the permission bits it gets.
	Mode fs.FileMode
	// UID and GID are its owner; -1 leaves the writer's.
	UID, GID int
}

// WriteFile replaces path with data: File{path, mode, uid, gid}.Write.
func WriteFile(path string, data []byte, mode fs.FileMode, uid, gid int) error {
	return File{Path: path, Mode: mode, UID: uid, GID: gid}.Write(func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write replaces the file with what fill writes: a temporary file in the
// same directory is filled, given its mode and owner, fsynced and renamed
// over the path, and the directory is fsynced. Readers see the old or the
// new file, never a partial one; the temporary file is removed on every
// failure, and a killed run's is removed by RemoveTemps.
func (f File) Write(fill func(io.Writer) error) error {
	dir := filepath.Dir(f.Path)
	tmp, err := createTemp(dir, filepath.Base(f.Path))
	if err != nil {
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(tmp.Name())
		}
	}()
	if err := f.fill(tmp, fill); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), f.Path); err != nil {
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	renamed = true
	return SyncDir(dir)
}

// createTemp creates ".base" + TempMark + random in dir, exclusively and
// without following a link, mode 0600 until fill sets the file's own.
func createTemp(dir, base string) (*os.File, error) {
	for i := 0; ; i++ {
		var r [6]byte
		rand.Read(r[:])
		name := filepath.Join(dir, "."+base+TempMark+hex.EncodeToString(r[:]))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
		if err == nil || !errors.Is(err, fs.ErrExist) || i == 100 {
			return f, err
		}
	}
}

func (f File) fill(tmp *os.File, fill func(io.Writer) error) error {
	err := fill(tmp)
	if err == nil {
		err = tmp.Chmod(f.Mode.Perm())
	}
	if err == nil && f.UID >= 0 {
		err = tmp.Chown(f.UID, f.GID)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	return err
}

// SyncDir fsyncs a directory, so that a rename or an unlink in it is on
// disk.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// RemoveTemps removes the temporary files a killed WriteFile left in dir
// (those of base only, when base is not "") and returns their paths. It
// removes only regular files owned by the user running dbmem or by the
// directory's owner (a temporary file already given its target's owner),
// who could remove them anyway; os.Remove unlinks and follows no link.
func RemoveTemps(dir, base string) []string {
	pattern := ".*" + TempMark + "*"
	if base != "" {
		pattern = "." + base + "*" + TempMark + "*" // also a backup's copy, base.dbmem-ID
	}
	names, _ := filepath.Glob(filepath.Join(dir, pattern))
	dirOwner := ownerOf(dir)
	var out []string
	for _, n := range names {
		st, err := os.Lstat(n)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if uid := ownerOf(n); uid != os.Geteuid() && uid != dirOwner {
			continue
		}
		if os.Remove(n) == nil {
			out = append(out, n)
		}
	}
	return out
}

// ownerOf is the uid owning path (not following a link), -1 if unknown.
func ownerOf(path string) int {
	st, err := os.Lstat(path)
	if err != nil {
		return -1
	}
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(s.Uid)
	}
	return -1
}

// ownFile reports whether the user running dbmem owns the file.
func ownFile(st fs.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && s.Uid == uint32(os.Geteuid())
}
