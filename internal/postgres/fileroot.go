package postgres

import (
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/linux"
)

// filesFS is where the postmaster's data directory and configuration files
// are. A postmaster in a container dbmem is not in sees its own mount
// namespace: the same path on this host is another file (or none), so its
// files are read through /proc/PID/root. ok is false when they cannot be
// read from here: the settings are then unknown, not PostgreSQL's
// defaults.
func (in *Instance) filesFS(fs linux.FS) (linux.FS, bool) {
	c, ok := linux.ContainerOfProc(fs, strconv.Itoa(in.PostmasterPID))
	if !ok {
		return fs, true
	}
	if self, ok := linux.ContainerOfProc(fs, "self"); ok && self.ID == c.ID && self.PodUID == c.PodUID {
		return fs, true // dbmem runs in the same container
	}
	sub := fs
	sub.Root = fs.ProcPath(strconv.Itoa(in.PostmasterPID), "root")
	if in.DataDir != "" && fs.Exists(sub.HostPath(in.DataDir)) {
		return sub, true
	}
	in.gap("configuration files", fmt.Sprintf("the postmaster runs in %s: its data directory %s is in the container's mount "+
		"namespace and %s is not readable from here, so its settings are unknown (not PostgreSQL's defaults); connect to it "+
		"or run dbmem in the pod", c, in.DataDir, sub.Root))
	return fs, false
}
