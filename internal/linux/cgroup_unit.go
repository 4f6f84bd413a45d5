package linux

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Server says how to recognise a database server's unit and how its
// reasons are worded.
type Server struct {
	Name   string // "PostgreSQL"
	ByHand string // how it is started without a unit: "with pg_ctl"
	Starts func(unit string) bool
}

// ServiceUnit is the systemd service that really runs pid, from its cgroup
// (/proc/PID/cgroup): the deepest .service on its path in systemd's
// hierarchy (v1's name=systemd, else v2's unified line), when srv.Starts
// says the unit starts the server (its name, or its ExecStart). noUnit
// says why there is none: a login session, a scope, a unit that does not
// start the server (it was started by hand from there), or no systemd at
// all. read is false when the cgroup could not be read: nothing is known.
// PostgreSQL and MySQL/MariaDB find their unit with it alike.
func ServiceUnit(fs FS, pid int, srv Server) (unit, noUnit string, read bool) {
	b, err := fs.ReadFile(fs.ProcPath(strconv.Itoa(pid), "cgroup"))
	lines := ParseProcCgroup(bytes.NewReader(b))
	cg, ok := systemdPath(lines)
	if err != nil || !ok {
		return "", "", false
	}
	svc := SystemdUnit(lines)
	switch {
	case svc != "" && srv.Starts(svc):
		return svc, "", true
	case svc != "":
		return "", fmt.Sprintf("its cgroup is %s, the unit %s, which does not start %s (it was started by hand from there, %s)", cg, svc, srv.Name, srv.ByHand), true
	case strings.HasPrefix(path.Base(cg), "session-") && strings.HasSuffix(cg, ".scope"):
		return "", fmt.Sprintf("its cgroup is %s, a login session, not a service unit (it was started %s)", cg, srv.ByHand), true
	case strings.HasSuffix(cg, ".scope"):
		return "", fmt.Sprintf("its cgroup is %s, a scope (a container's, or a command run with systemd-run --scope), not a service unit", cg), true
	}
	return "", fmt.Sprintf("its cgroup is %s: no service unit runs it (started %s, or systemd does not run this host)", cg, srv.ByHand), true
}

// systemdPath is a process's path in systemd's hierarchy: v1's
// name=systemd line, else the unified line (0::) of cgroup v2.
func systemdPath(lines []CgroupLine) (string, bool) {
	var unified string
	var found bool
	for _, l := range lines {
		if slices.Contains(l.Controllers, "name=systemd") {
			return l.Path, true
		}
		if l.ID == 0 && len(l.Controllers) == 0 {
			unified, found = l.Path, true
		}
	}
	return unified, found
}
