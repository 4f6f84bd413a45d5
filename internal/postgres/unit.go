package postgres

import (
	"fmt"
	"path"
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

// RunningUnit is the systemd unit that really runs postmaster pid
// (linux.ServiceUnit): the deepest .service in its cgroup that starts
// PostgreSQL. noUnit says why there is none (a pg_ctl start in a login
// session or in another service, or no systemd at all): nothing then
// writes a drop-in for it. Without a readable cgroup the packaged name of
// the cluster's layout (StoppedUnit) is taken.
func RunningUnit(fs linux.FS, pid int, configFile, dataDir string) (unit, noUnit string) {
	unit, noUnit, read := linux.ServiceUnit(fs, pid, linux.Server{Name: "PostgreSQL", ByHand: "with pg_ctl",
		Starts: func(u string) bool { return runsPostgres(fs.Root, u) }})
	if !read {
		return packagedUnit(configFile, dataDir, "its cgroup was not read and ")
	}
	return unit, noUnit
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

// runsPostgres: the unit is named for PostgreSQL, or its ExecStart (its
// files under root) runs postgres, pg_ctl or pg_ctlcluster.
func runsPostgres(root, unit string) bool {
	name := strings.ToLower(unit)
	return strings.Contains(name, "postgres") || strings.HasPrefix(name, "pg") ||
		sdunit.Starts(root, unit, "postgres", "postmaster", "pg_ctl", "pg_ctlcluster")
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
