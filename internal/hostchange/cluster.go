package hostchange

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dbmem/dbmem/internal/linux"
)

// ClusterPrefix starts the name of every throwaway cluster directory
// (internal/pgcluster).
const ClusterPrefix = "dbmem-pg-"

// Cluster is a throwaway PostgreSQL cluster's directory, journaled when
// dbmem made it, and its postmaster once started. Replay stops and
// removes it only while the directory is the one dbmem made (its device,
// inode, owner and, where the file system keeps it, birth time) and stops
// only processes that are the cluster's by what the kernel says of them.
type Cluster struct {
	Dir     string `json:"dir"`
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	UID     uint32 `json:"uid"`
	BirthNs int64  `json:"birth_ns,omitempty"`
	// Bin is the PostgreSQL binary directory, links resolved: the
	// cluster's processes run its postgres and pg_ctl.
	Bin        string   `json:"bin"`
	Postmaster *Process `json:"postmaster,omitempty"`
}

// NewCluster records the directory dbmem just made for a cluster, whose
// processes will run the binaries in bin.
func NewCluster(dir, bin string) (*Cluster, error) {
	id, err := identify(dir)
	if err != nil {
		return nil, fmt.Errorf("journal cluster directory: %w", err)
	}
	c := &Cluster{Dir: filepath.Clean(dir), Dev: id.dev, Ino: id.ino, UID: id.uid, BirthNs: id.birth}
	if c.Bin, err = filepath.EvalSymlinks(bin); err != nil {
		return nil, fmt.Errorf("journal cluster directory: %w", err)
	}
	return c, nil
}

// SetPostmaster records the cluster's running postmaster (nil after it
// stopped: pid 0).
func (c *Cluster) SetPostmaster(fs linux.FS, pid int) error {
	if pid == 0 {
		c.Postmaster = nil
		return nil
	}
	p, err := ProcessOf(fs, pid)
	if err != nil {
		return fmt.Errorf("journal the postmaster of %s: %w", c.Dir, err)
	}
	c.Postmaster = &p
	return nil
}

// identity is what the kernel says of a directory.
type identity struct {
	dev, ino uint64
	uid      uint32
	birth    int64
	dir      bool
}

func identify(path string) (identity, error) {
	var sx unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS|unix.STATX_BTIME, &sx)
	if err != nil {
		return identity{}, &os.PathError{Op: "statx", Path: path, Err: err}
	}
	id := identity{dev: unix.Mkdev(sx.Dev_major, sx.Dev_minor), ino: sx.Ino, uid: sx.Uid, dir: sx.Mode&unix.S_IFMT == unix.S_IFDIR}
	if sx.Mask&unix.STATX_BTIME != 0 {
		id.birth = sx.Btime.Sec*1e9 + int64(sx.Btime.Nsec)
	}
	return id, nil
}

// check says why Dir is not the directory the journal recorded ("" when
// it is); gone is true when it no longer exists.
func (c *Cluster) check() (why string, gone bool) {
	if !filepath.IsAbs(c.Dir) || filepath.Clean(c.Dir) != c.Dir || !strings.HasPrefix(filepath.Base(c.Dir), ClusterPrefix) {
		return "not a directory dbmem creates (an absolute " + ClusterPrefix + "* path)", false
	}
	id, err := identify(c.Dir)
	switch {
	case os.IsNotExist(err):
		return "", true
	case err != nil:
		return err.Error(), false
	case !id.dir:
		return "not a directory (a link, or a file)", false
	case id.dev != c.Dev || id.ino != c.Ino || id.uid != c.UID || c.BirthNs != 0 && id.birth != c.BirthNs:
		return fmt.Sprintf("not the directory dbmem made (device %d inode %d uid %d, the journal says device %d inode %d uid %d)",
			id.dev, id.ino, id.uid, c.Dev, c.Ino, c.UID), false
	}
	return "", false
}

// undo stops the cluster's processes and removes its directory.
func (c *Cluster) undo(fs linux.FS) Undone {
	r := Undone{What: "cluster " + c.Dir, Before: "absent", Set: "created"}
	why, gone := c.check()
	if why != "" {
		r.Error = why + ": not touched"
		return r
	}
	if !gone {
		c.waitStarters(fs, 60*time.Second)
		for _, p := range c.postmasters(fs) {
			if err := p.Stop(fs, 30*time.Second); err != nil {
				r.Error = fmt.Sprintf("stop postmaster %d: %v", p.PID, err)
				return r
			}
		}
		if err := os.RemoveAll(c.Dir); err != nil {
			r.Error = err.Error()
			return r
		}
	}
	r.After, r.OK = "absent", true
	return r
}

// waitStarters waits for a pg_ctl of the cluster (a killed run may have
// left one starting the server) to finish, so that the postmaster it
// starts is found; after d it is terminated.
func (c *Cluster) waitStarters(fs linux.FS, d time.Duration) {
	for end := time.Now().Add(d); ; time.Sleep(100 * time.Millisecond) {
		ps := c.processes(fs, "pg_ctl")
		if len(ps) == 0 {
			return
		}
		if time.Now().After(end) {
			for _, p := range ps {
				p.Signal(fs, syscall.SIGTERM)
			}
			return
		}
	}
}

// postmasters are the journaled postmaster, if it still runs, and the
// cluster's postgres processes whose parent is not one of them (a
// postmaster started after the journal was last written).
func (c *Cluster) postmasters(fs linux.FS) []Process {
	var out []Process
	if c.Postmaster != nil && c.Postmaster.Running(fs) && c.Runs(fs, c.Postmaster.PID, "postgres") {
		out = append(out, *c.Postmaster)
	}
	all := c.processes(fs, "postgres")
	mine := map[int]bool{}
	for _, p := range all {
		mine[p.PID] = true
	}
	for _, p := range all {
		st, err := linux.ReadStat(fs, p.PID)
		if err == nil && !mine[st.PPid] && (c.Postmaster == nil || p.PID != c.Postmaster.PID) {
			out = append(out, p)
		}
	}
	return out
}

// processes lists the cluster's running processes of Bin/name (Runs).
func (c *Cluster) processes(fs linux.FS, name string) []Process {
	pids, _ := linux.ListPIDs(fs)
	var out []Process
	for _, pid := range pids {
		if !c.Runs(fs, pid, name) {
			continue
		}
		p, err := ProcessOf(fs, pid)
		if st, serr := linux.ReadStat(fs, pid); err == nil && serr == nil && st.State != "Z" {
			out = append(out, p)
		}
	}
	return out
}

// Runs reports whether pid is one of the cluster's processes running
// Bin/name ("postgres", "pg_ctl"), by what the kernel says of it: it runs
// as the cluster's owner, that executable, in the cluster's directory (a
// postmaster works in its data directory, pg_ctl in the cluster's), never
// by what its command line says.
func (c *Cluster) Runs(fs linux.FS, pid int, name string) bool {
	want, err := filepath.EvalSymlinks(filepath.Join(c.Bin, name))
	if err != nil {
		return false
	}
	exe, err := os.Readlink(fs.ProcPath(strconv.Itoa(pid), "exe"))
	return err == nil && exe == want && c.owns(fs, pid)
}

// owns reports whether pid runs as the cluster's owner in its directory.
func (c *Cluster) owns(fs linux.FS, pid int) bool {
	proc := fs.ProcPath(strconv.Itoa(pid))
	st, err := linux.ReadStatus(fs, pid)
	if err != nil || st.UID == nil || uint32(*st.UID) != c.UID {
		return false
	}
	cwd, err := os.Readlink(filepath.Join(proc, "cwd"))
	dir, derr := filepath.EvalSymlinks(c.Dir)
	if err != nil || derr != nil || cwd != dir && !strings.HasPrefix(cwd, dir+"/") {
		return false
	}
	var wd syscall.Stat_t
	return syscall.Stat(filepath.Join(proc, "cwd"), &wd) == nil && wd.Dev == c.Dev
}
