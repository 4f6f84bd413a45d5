package hostchange

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/memcg"
)

// CgroupPrefix starts the name of every memory cgroup the lab makes,
// followed by the pid of the run that made it.
const CgroupPrefix = "dbmem-lab-oom-"

// Cgroup is a memory cgroup the lab made (journaled before it is made:
// Ino is 0 until then) and the parent its processes go back to.
type Cgroup struct {
	Dir     string `json:"dir"`
	Parent  string `json:"parent"`
	Ino     uint64 `json:"ino,omitempty"`
	BirthNs int64  `json:"birth_ns,omitempty"`
}

// Made records the group's inode (and birth time, where the file system
// keeps it) once it exists.
func (g *Cgroup) Made() error {
	id, err := identify(g.Dir)
	if err != nil {
		return fmt.Errorf("journal memory cgroup: %w", err)
	}
	g.Ino, g.BirthNs = id.ino, id.birth
	return nil
}

// check says why Dir is not a cgroup the run owner's lab made ("").
func (g *Cgroup) check(fs linux.FS, owner Process) string {
	root := fs.SysPath("fs", "cgroup") + "/"
	name := CgroupPrefix + strconv.Itoa(owner.PID)
	switch {
	case filepath.Clean(g.Dir) != g.Dir || !strings.HasPrefix(g.Dir, root) || filepath.Base(g.Dir) != name || filepath.Dir(g.Dir) != g.Parent:
		return fmt.Sprintf("not a memory cgroup the lab makes (%s/.../%s)", root, name)
	case g.Ino == 0:
		return ""
	}
	id, err := identify(g.Dir)
	switch {
	case os.IsNotExist(err):
		return ""
	case err != nil:
		return err.Error()
	case !id.dir || id.ino != g.Ino || g.BirthNs != 0 && id.birth != g.BirthNs:
		return fmt.Sprintf("not the group the lab made (inode %d, the journal says %d)", id.ino, g.Ino)
	}
	return ""
}

// undo moves what is left in the group to its parent and removes it.
func (g *Cgroup) undo(fs linux.FS, owner Process) Undone {
	r := Undone{What: "memory cgroup " + g.Dir, Before: "absent", Set: "created"}
	if why := g.check(fs, owner); why != "" {
		r.Error = why + ": not touched"
		return r
	}
	if err := memcg.RemoveDir(g.Dir, g.Parent, 15*time.Second); err != nil {
		r.Error = err.Error()
		return r
	}
	r.After, r.OK = "absent", true
	return r
}
