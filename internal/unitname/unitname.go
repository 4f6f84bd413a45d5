// Package unitname names the systemd unit that runs a database from where
// its files are, as the distributions' packages name them.
package unitname

import (
	"fmt"
	"regexp"
)

var (
	debianDataDir  = regexp.MustCompile(`^/var/lib/postgresql/([0-9.]+)/([^/]+)$`)
	debianConfFile = regexp.MustCompile(`^/etc/postgresql/([0-9.]+)/([^/]+)/postgresql\.conf$`)
	redhatDataDir  = regexp.MustCompile(`^/var/lib/pgsql/([0-9.]+)/data$`)
)

// PostgresPackaged is the packaged unit of a PostgreSQL cluster: Debian's
// postgresql@<version>-<cluster>.service (from the configuration file or
// the data directory), PGDG's postgresql-<version>.service, RHEL's own
// postgresql.service; and whether the name follows from a package's
// layout (false: "postgresql.service" is only a guess).
func PostgresPackaged(configFile, dataDir string) (string, bool) {
	if v, c, ok := DebianCluster(configFile); ok {
		return fmt.Sprintf("postgresql@%s-%s.service", v, c), true
	}
	if m := debianDataDir.FindStringSubmatch(dataDir); m != nil {
		return fmt.Sprintf("postgresql@%s-%s.service", m[1], m[2]), true
	}
	if m := redhatDataDir.FindStringSubmatch(dataDir); m != nil {
		return fmt.Sprintf("postgresql-%s.service", m[1]), true
	}
	return "postgresql.service", dataDir == "/var/lib/pgsql/data" // RHEL's and Fedora's own package
}

// DebianCluster is the version and name of a cluster of Debian's layout
// (/etc/postgresql/15/main/postgresql.conf: "15", "main").
func DebianCluster(configFile string) (version, name string, ok bool) {
	if m := debianConfFile.FindStringSubmatch(configFile); m != nil {
		return m[1], m[2], true
	}
	return "", "", false
}

// MySQL are the units a MySQL or MariaDB server may run as, most likely
// first for the flavor ("mariadb" or "mysql").
func MySQL(flavor string) []string {
	if flavor == "mariadb" {
		return []string{"mariadb.service", "mysql.service", "mysqld.service"}
	}
	return []string{"mysqld.service", "mysql.service", "mariadb.service"}
}
