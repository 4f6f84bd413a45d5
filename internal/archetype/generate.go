package archetype

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Generate builds the tree of the archetype in dir from its spec.yaml and
// posted/ files.
func Generate(dir string) (Tree, error) {
	s, err := LoadSpec(dir)
	if err != nil {
		return nil, err
	}
	posted, err := postedLines(dir, s.MeminfoPosted)
	if err != nil {
		return nil, err
	}
	t := Tree{}
	s.writeHost(t, posted)
	var shm []shmRow
	var procs []proc
	for _, pg := range s.Postgres {
		procs = append(procs, s.pgProcs(pg, &shm)...)
		s.pgFiles(t, pg)
	}
	for _, m := range s.MySQL {
		procs = append(procs, s.mysqlProc(m, &shm))
		s.mysqlFiles(t, m)
	}
	if s.Oracle != nil {
		procs = append(procs, s.oracleProcs(*s.Oracle, &shm)...)
	}
	for _, o := range s.Others {
		procs = append(procs, otherProc(o))
	}
	seen := map[int]bool{}
	for _, p := range procs {
		if seen[p.pid] {
			return nil, fmt.Errorf("%s: pid %d twice", dir, p.pid)
		}
		seen[p.pid] = true
		s.writeProc(t, p)
	}
	t["proc/sysvipc/shm"] = sysvShm(shm)
	s.writeSelf(t)
	for p, c := range s.Files {
		t[p] = c
	}
	for p, f := range s.Posted {
		b, err := os.ReadFile(filepath.Join(dir, "posted", f))
		if err != nil {
			return nil, err
		}
		t[p] = string(b)
	}
	if s.PostedTree {
		if err := overlay(t, filepath.Join(dir, "posted", "tree")); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// overlay copies every file under src into the tree at the same path.
func overlay(t Tree, src string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(src, p)
		t[filepath.ToSlash(rel)] = string(b)
		return err
	})
}

func (s Spec) writeSelf(t Tree) {
	self := SelfSpec{Cgroup: "0::/user.slice/user-0.slice/session-1.scope",
		Mountinfo: "22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"}
	if s.Self != nil {
		self = *s.Self
	}
	t["proc/self/cgroup"] = self.Cgroup + "\n"
	t["proc/self/mountinfo"] = self.Mountinfo
	if self.DockerEnv {
		t["root/.dockerenv"] = ""
	}
}

// Dirs lists the archetype directories under root (those with a spec.yaml).
func Dirs(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			if _, err := os.Stat(filepath.Join(root, e.Name(), "spec.yaml")); err == nil {
				out = append(out, e.Name())
			}
		}
	}
	return out, nil
}
