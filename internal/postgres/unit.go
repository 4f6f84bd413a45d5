package postgres

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/sdunit"
	"github.com/dbmem/dbmem/internal/unitname"
)

// readUnit finds the systemd unit that runs the instance (RunningUnit):
// the one unit check, plan and apply name for it.
func (in *Instance) readUnit(fs linux.FS) {
	in.Unit, in.NoUnit = RunningUnit(fs, in.PostmasterPID, in.Settings.String("config_file"), in.DataDir)
}

// RunningUnit is the systemd unit that really runs postmaster pid, from
// its cgroup (/proc/PID/cgroup): the deepest .service on its path that
// starts PostgreSQL. noUnit says why there is none (a pg_ctl start in a
// login session or in another service, or no systemd at all): nothing
// then writes a drop-in for it. Without a readable cgroup the packaged
// name of the cluster's layout (StoppedUnit) is taken.
func RunningUnit(fs linux.FS, pid int, configFile, dataDir string) (unit, noUnit string) {
	b, err := fs.ReadFile(fs.ProcPath(strconv.Itoa(pid), "cgroup"))
	lines := linux.ParseProcCgroup(bytes.NewReader(b))
	cg, ok := systemdPath(lines)
	if err != nil || !ok {
		return packagedUnit(configFile, dataDir, "its cgroup was not read and ")
	}
	svc := linux.SystemdUnit(lines)
	switch {
	case svc != "" && runsPostgres(fs.Root, svc):
		return svc, ""
	case svc != "":
		return "", fmt.Sprintf("its cgroup is %s, the unit %s, which does not start PostgreSQL (it was started by hand from there, with pg_ctl)", cg, svc)
	case strings.HasPrefix(path.Base(cg), "session-") && strings.HasSuffix(cg, ".scope"):
		return "", fmt.Sprintf("its cgroup is %s, a login session, not a service unit (it was started with pg_ctl)", cg)
	case strings.HasSuffix(cg, ".scope"):
		return "", fmt.Sprintf("its cgroup is %s, a scope (a container's, or a command run with systemd-run --scope), not a service unit", cg)
	}
	return "", fmt.Sprintf("its cgroup is %s: no service unit runs it (started with pg_ctl, or systemd does not run this host)", cg)
}

// StoppedUnit is the unit of a cluster from its layout alone: the
// packaged name when the directory (a data directory, or one holding
// postgresql.conf) follows a package's layout; else none, and why.
func StoppedUnit(dir string) (unit, noUnit string) {
	return packagedUnit(path.Join(dir, "postgresql.conf"), dir, "")
}

func packagedUnit(configFile, dataDir, why string) (unit, noUnit string) {
	if u, ok := unitname.PostgresPackaged(configFile, dataDir); ok {
		return u, ""
	}
	return "", fmt.Sprintf("%s%s is not in a packaged layout (Debian's, PGDG's), so no service unit is known to start it; give --unit if one does", why, dataDir)
}

// systemdPath is the postmaster's path in systemd's hierarchy: v1's
// name=systemd line, else the unified line (0::) of cgroup v2.
func systemdPath(lines []linux.CgroupLine) (string, bool) {
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

// runsPostgres: the unit is named for PostgreSQL, or its ExecStart (its
// files under root) runs postgres, pg_ctl or pg_ctlcluster.
func runsPostgres(root, unit string) bool {
	name := strings.ToLower(unit)
	if strings.Contains(name, "postgres") || strings.HasPrefix(name, "pg") {
		return true
	}
	u, err := sdunit.Resolve(root, unit)
	if err != nil {
		return false
	}
	a, ok := u.Get("ExecStart")
	if !ok {
		return false
	}
	for _, f := range strings.Fields(a.Value) {
		switch path.Base(strings.TrimLeft(f, "-@+!:")) {
		case "postgres", "postmaster", "pg_ctl", "pg_ctlcluster":
			return true
		}
	}
	return false
}

// Ctl is the command that restarts a cluster no unit runs: Debian's
// pg_ctlcluster for a cluster of its layout (pg_ctl -D would not find the
// configuration in /etc/postgresql), else pg_ctl -D on the directory that
// holds postgresql.conf.
func Ctl(configFile, dataDir string) string {
	if v, c, ok := unitname.DebianCluster(configFile); ok {
		return "pg_ctlcluster " + v + " " + c
	}
	dir := dataDir
	if configFile != "" && path.Dir(configFile) != dataDir {
		dir = path.Dir(configFile) // its data_directory points at the data
	}
	return "pg_ctl -D " + ShellQuote(dir)
}

// ShellQuote quotes a path for a POSIX shell when it needs it: a data
// directory is the server's to name, and the words are meant to be pasted.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
