package servertrust

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Owned is what Stat tells about a file a server should own.
type Owned struct {
	UID  uint32
	Mode fs.FileMode
}

// Stat returns the owner and mode of path, following symbolic links when
// follow is set (a data directory may be reached through one; a pid file
// or a socket must not be a link).
func Stat(path string, follow bool) (Owned, error) {
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	fi, err := stat(path)
	if err != nil {
		return Owned{}, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Owned{}, fmt.Errorf("stat %s: no owner", path)
	}
	return Owned{UID: st.Uid, Mode: fi.Mode()}, nil
}

// CheckOwned records in p whether path exists with the kind want
// (fs.ModeDir, fs.ModeSocket, or 0 for a regular file) and is owned by
// the server's account. A directory or a socket may be reached through a
// symbolic link (the socket's listener is proven at dial time anyway); a
// regular file, whose content dbmem reads, may not. A file that cannot be
// looked at (permission) is an unchecked item, not a failure. It reports
// whether the check passed.
func (p *Proof) CheckOwned(what, path string, want fs.FileMode) bool {
	o, err := Stat(path, want != 0)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is in the message already
	}
	switch {
	case err != nil && os.IsPermission(err):
		p.Unchecked("%s %s: %v", what, path, err)
		return false
	case err != nil:
		p.Fail("%s %s: %v", what, path, err)
	case o.Mode.Type() != want:
		p.Fail("%s %s is a %s, not a %s", what, path, kind(o.Mode.Type()), kind(want))
	case o.UID != p.Account.UID:
		p.Fail("%s %s is owned by %s, the server runs as %s", what, path, AccountOf(o.UID), p.Account)
	default:
		return true
	}
	return false
}

func kind(t fs.FileMode) string {
	switch t {
	case 0:
		return "regular file"
	case fs.ModeDir:
		return "directory"
	case fs.ModeSocket:
		return "socket"
	case fs.ModeSymlink:
		return "symbolic link"
	}
	return t.String()
}
