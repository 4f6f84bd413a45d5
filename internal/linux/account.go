package linux

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Account is who dbmem reads a database's files for: the credentials the
// kernel holds for its server process (the file-system uid and gid and the
// supplementary groups of /proc/PID/status). A file the database names
// (an include, a log, its data directory) is read only as this account
// could read it (FS.Account, OpenAs).
type Account struct {
	UID  uint32   `json:"uid"`
	GIDs []uint32 `json:"gids"` // the fs gid, then the supplementary groups
}

// ReadAccount reads the account a process runs as.
func ReadAccount(fs FS, pid int) (*Account, error) {
	path := fs.ProcPath(strconv.Itoa(pid), "status")
	b, err := fs.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, err := parseAccount(b)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return a, nil
}

// parseAccount reads the Uid, Gid and Groups lines of a status file: the
// fourth of Uid and Gid is the file-system id, the one permissions use.
func parseAccount(b []byte) (*Account, error) {
	var a Account
	var uid, gid bool
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		f := strings.Fields(v)
		switch {
		case !ok:
		case k == "Uid" && len(f) == 4:
			n, err := strconv.ParseUint(f[3], 10, 32)
			a.UID, uid = uint32(n), err == nil
		case k == "Gid" && len(f) == 4:
			n, err := strconv.ParseUint(f[3], 10, 32)
			a.GIDs, gid = append([]uint32{uint32(n)}, a.GIDs...), err == nil
		case k == "Groups":
			for _, g := range f {
				if n, err := strconv.ParseUint(g, 10, 32); err == nil {
					a.GIDs = append(a.GIDs, uint32(n))
				}
			}
		}
	}
	if !uid || !gid {
		return nil, fmt.Errorf("no Uid or Gid line with four ids")
	}
	return &a, nil
}

// As returns fs reading files under Root as a could (nil: as root).
func (fs FS) As(a *Account) FS {
	fs.Account = a
	return fs
}

func (a *Account) String() string {
	if a == nil {
		return "root"
	}
	return "uid " + strconv.FormatUint(uint64(a.UID), 10)
}

// may reports whether the account has the permission bit (4 read, 1
// search) on a file: the owner's, group's or others' bits, as the kernel
// checks them (access control lists and capabilities are not read: a file
// only an ACL opens is refused, never the reverse).
func (a *Account) may(st *syscall.Stat_t, bit uint32) bool {
	if a.UID == 0 {
		return true
	}
	mode := st.Mode & 0o777
	switch {
	case st.Uid == a.UID:
		return mode>>6&bit != 0
	case a.inGroup(st.Gid):
		return mode>>3&bit != 0
	}
	return mode&bit != 0
}

func (a *Account) inGroup(gid uint32) bool { return slices.Contains(a.GIDs, gid) }
