package memcg

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// Place is where a new memory cgroup goes.
type Place struct {
	// Mount is the hierarchy's directory under the sysfs root
	// ("fs/cgroup/memory" for v1, "fs/cgroup" or "fs/cgroup/unified" for v2);
	// Parent the cgroup path the group is made in ("/" for the root).
	Mount, Parent string
	V2            bool
}

// Own is this process's place in the memory hierarchies, from
// /proc/self/cgroup: the v1 memory cgroup and the v2 cgroup ("" when the
// hierarchy is not listed).
type Own struct{ V1Memory, V2 string }

// ParseOwn reads /proc/self/cgroup text: "4:memory:/a/b" (v1), "0::/c" (v2).
func ParseOwn(text string) Own {
	var o Own
	for _, l := range linux.ParseProcCgroup(strings.NewReader(text)) {
		switch {
		case l.ID == 0 && len(l.Controllers) == 0:
			o.V2 = l.Path
		case slices.Contains(l.Controllers, "memory"):
			o.V1Memory = l.Path
		}
	}
	return o
}

// Files are the controller files Where looks at, by path under the sysfs
// root; a missing file is absent from the map.
type Files map[string]string

// Where chooses the place for a new memory cgroup. v2 wins when its
// hierarchy has the memory controller: below the caller's own cgroup when
// that cgroup delegates memory (cgroup.subtree_control), else below the
// root. Otherwise the v1 memory hierarchy, below the caller's own memory
// cgroup, so that the group nests in any limit already set above it.
func Where(o Own, f Files) (Place, error) {
	for _, mount := range []string{"fs/cgroup", "fs/cgroup/unified"} {
		if !hasWord(f[path.Join(mount, "cgroup.controllers")], "memory") {
			continue
		}
		if o.V2 != "" && o.V2 != "/" && hasWord(f[path.Join(mount, o.V2, "cgroup.subtree_control")], "memory") {
			return Place{Mount: mount, Parent: o.V2, V2: true}, nil
		}
		if hasWord(f[path.Join(mount, "cgroup.subtree_control")], "memory") {
			return Place{Mount: mount, Parent: "/", V2: true}, nil
		}
		return Place{}, fmt.Errorf("cgroup v2 (/sys/%s) has the memory controller but neither this process's cgroup %s nor the root "+
			"enables it for children (cgroup.subtree_control): run dbmem from a cgroup that delegates memory, "+
			"e.g. systemd-run --scope -p Delegate=yes dbmem lab oom", mount, o.V2)
	}
	if o.V1Memory != "" {
		if _, ok := f["fs/cgroup/memory/cgroup.procs"]; ok {
			return Place{Mount: "fs/cgroup/memory", Parent: o.V1Memory}, nil
		}
	}
	return Place{}, errors.New("no memory cgroup controller: neither cgroup v2 with the memory controller nor a cgroup v1 memory hierarchy " +
		"at /sys/fs/cgroup/memory is mounted")
}

// placeFiles lists the files Where reads for o.
func placeFiles(o Own) []string {
	out := []string{"fs/cgroup/memory/cgroup.procs"}
	for _, mount := range []string{"fs/cgroup", "fs/cgroup/unified"} {
		out = append(out, path.Join(mount, "cgroup.controllers"), path.Join(mount, "cgroup.subtree_control"))
		if o.V2 != "" {
			out = append(out, path.Join(mount, o.V2, "cgroup.subtree_control"))
		}
	}
	return out
}

func hasWord(list, w string) bool {
	return slices.Contains(strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }), w)
}
