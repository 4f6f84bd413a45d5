package memcg

import (
	"strings"
	"testing"
)

// selfV1 is /proc/self/cgroup on this project's test host (Debian 12,
// kernel 6.18, cgroup v1 with an empty unified line).
const selfV1 = `9:name=systemd:/
8:pids:/
4:memory:/process_api/ff5e1e5457f183fad60e553b28228951
1:cpu:/
0::/
`

// selfV2 is /proc/self/cgroup under systemd with the unified hierarchy.
const selfV2 = "0::/user.slice/user-0.slice/session-3.scope\n"

func TestWhere(t *testing.T) {
	v1 := Files{"fs/cgroup/memory/cgroup.procs": "1\n"}
	v2root := Files{"fs/cgroup/cgroup.controllers": "cpuset cpu io memory pids\n", "fs/cgroup/cgroup.subtree_control": "cpu io memory pids\n"}
	v2own := Files{"fs/cgroup/cgroup.controllers": "cpu io memory pids\n", "fs/cgroup/cgroup.subtree_control": "memory\n",
		"fs/cgroup/user.slice/user-0.slice/session-3.scope/cgroup.subtree_control": "memory pids\n"}
	v2none := Files{"fs/cgroup/cgroup.controllers": "cpu io memory pids\n", "fs/cgroup/cgroup.subtree_control": "cpu\n"}
	hybrid := Files{"fs/cgroup/memory/cgroup.procs": "1\n", "fs/cgroup/unified/cgroup.controllers": ""}
	for _, c := range []struct {
		name  string
		self  string
		files Files
		want  Place
		err   string
	}{
		{"v1 below own memory cgroup", selfV1, v1, Place{Mount: "fs/cgroup/memory", Parent: "/process_api/ff5e1e5457f183fad60e553b28228951"}, ""},
		{"hybrid: unified without memory, v1 memory", selfV1, hybrid, Place{Mount: "fs/cgroup/memory", Parent: "/process_api/ff5e1e5457f183fad60e553b28228951"}, ""},
		{"v2 root delegates memory", selfV2, v2root, Place{Mount: "fs/cgroup", Parent: "/", V2: true}, ""},
		{"v2 own cgroup delegates memory", selfV2, v2own, Place{Mount: "fs/cgroup", Parent: "/user.slice/user-0.slice/session-3.scope", V2: true}, ""},
		{"v2 without delegation", selfV2, v2none, Place{}, "systemd-run --scope"},
		{"no memory controller", "0::/\n", Files{}, Place{}, "no memory cgroup controller"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Where(ParseOwn(c.self), c.files)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("error %v, want one naming %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("Where = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

func FuzzParseOwn(f *testing.F) {
	f.Add(selfV1)
	f.Add(selfV2)
	f.Add("::::\n0:\n")
	f.Fuzz(func(t *testing.T, s string) {
		o := ParseOwn(s)
		Where(o, Files{"fs/cgroup/memory/cgroup.procs": ""})
	})
}
