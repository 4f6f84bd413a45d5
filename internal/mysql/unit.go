package mysql

import (
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/sdunit"
	"github.com/dbmem/dbmem/internal/unitname"
)

// RunningUnit is the systemd unit that really runs the server, found as
// PostgreSQL's is (linux.ServiceUnit): the deepest .service in its cgroup
// that starts mysqld or mariadbd; noUnit says why none does (started by
// hand or by an init script, or no systemd at all). Without a readable
// cgroup, the packages' unit when the data directory is theirs
// (/var/lib/mysql) and the unit is installed.
func RunningUnit(fs linux.FS, in *Instance) (unit, noUnit string) {
	unit, noUnit, read := linux.ServiceUnit(fs, in.PID, linux.Server{Name: "MySQL/MariaDB", ByHand: "by hand or by an init script",
		Starts: func(u string) bool { return runsMySQL(fs.Root, u) }})
	if read {
		return unit, noUnit
	}
	if strings.TrimSuffix(in.DataDir, "/") == "/var/lib/mysql" {
		for _, u := range unitname.MySQL(string(in.Flavor)) {
			if u, err := sdunit.Resolve(fs.Root, u); err == nil && u.File != "" {
				return u.Name, ""
			}
		}
	}
	return "", "its cgroup was not read and " + in.DataDir + " is not the packages' data directory with their unit installed: no service unit is known to start it"
}

// runsMySQL: the unit is named for MySQL or MariaDB, or its ExecStart runs
// the server or its wrapper.
func runsMySQL(root, unit string) bool {
	name := strings.ToLower(unit)
	return strings.Contains(name, "mysql") || strings.Contains(name, "mariadb") ||
		sdunit.Starts(root, unit, "mysqld", "mariadbd", "mysqld_safe", "mariadbd-safe")
}
