package servertrust

import (
	"cmp"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"github.com/dbmem/dbmem/internal/linux"
)

// Ownership is who owns a running database instance, as the kernel told
// it when dbmem read the host: the account its server process runs as,
// the owner of the binary it runs and of the directory it works in (the
// data directory: the postmaster and mysqld chdir into it). Account names
// are those of the host read, so a capture keeps them.
type Ownership struct {
	Process Account `json:"process"`
	// Binary is /proc/PID/exe, DataDir /proc/PID/cwd: nil when they could
	// not be looked at (Unchecked says why).
	Binary  *FileOwner `json:"binary,omitempty"`
	DataDir *FileOwner `json:"data_dir,omitempty"`
	// Failed are contradictions (real and effective uids differ);
	// Unchecked what could not be looked at.
	Failed    []string `json:"failed,omitempty"`
	Unchecked []string `json:"unchecked,omitempty"`
}

// FileOwner is a file's path (for messages), owner and permission bits.
type FileOwner struct {
	Path  string  `json:"path"`
	Owner Account `json:"owner"`
	Perm  uint32  `json:"perm"`
}

// ReadOwnership reads who owns the server process pid, its binary and
// its working directory on this host; dataDir names the directory in
// messages. Nil when fs is not this host's /proc (a capture carries what
// was read on its own host, see Manifest.Owners).
func ReadOwnership(fs linux.FS, pid int, dataDir string) *Ownership {
	if !fs.IsLive() {
		return nil
	}
	o := &Ownership{}
	c, err := linux.ReadCreds(fs, pid)
	if err != nil {
		o.Failed = append(o.Failed, fmt.Sprintf("credentials of pid %d: %v", pid, err))
		return o
	}
	if c.UID != c.EUID {
		o.Failed = append(o.Failed, fmt.Sprintf("pid %d runs with real uid %d and effective uid %d", pid, c.UID, c.EUID))
	}
	o.Process = AccountOf(c.EUID)
	exe, _ := linux.ReadLink(fs, pid, "exe")
	o.Binary = o.look("binary", fs.ProcPath(strconv.Itoa(pid), "exe"), exe)
	if dataDir == "" {
		dataDir, _ = linux.ReadLink(fs, pid, "cwd")
	}
	o.DataDir = o.look("data directory", fs.ProcPath(strconv.Itoa(pid), "cwd"), dataDir)
	return o
}

// look stats the file a /proc link reaches (the inode itself, in any
// mount namespace, even when the name was replaced since).
func (o *Ownership) look(what, link, name string) *FileOwner {
	fi, err := os.Stat(link)
	if err != nil {
		o.Unchecked = append(o.Unchecked, fmt.Sprintf("%s %s: %v", what, name, err))
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		o.Unchecked = append(o.Unchecked, fmt.Sprintf("%s %s: no owner", what, name))
		return nil
	}
	name = cmp.Or(name, link)
	return &FileOwner{Path: name, Owner: AccountOf(st.Uid), Perm: uint32(fi.Mode().Perm())}
}
