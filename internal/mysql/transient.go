package mysql

import (
	"errors"
	"slices"
)

// errTransient marks a server binary run that exits, not a server.
var errTransient = errors.New("a mysqld run that exits, not a server")

// transientOptions make mysqld/mariadbd run once and exit: the bootstrap
// of mariadb-install-db, MySQL's --initialize, the help and version
// dumps and the configuration checks.
var transientOptions = map[string]bool{
	"--bootstrap": true, "--initialize": true, "--initialize-insecure": true, "--help": true,
	"-?": true, "--version": true, "-V": true, "--validate-config": true, "--print-defaults": true,
}

// isTransient reports whether a server command line (argv[0] first) is a
// run that exits rather than a server.
func isTransient(args []string) bool {
	return slices.ContainsFunc(args[min(1, len(args)):], func(a string) bool { return transientOptions[a] })
}
