package postgres

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/jackc/pgpassfile"
)

// secret is a password and where it came from ("PGPASSWORD", "~/.pgpass").
type secret struct {
	value, from string
}

// passwordQuery is what a password is looked up for. Bound asks for an
// entry that names the host and the port (not "*"): the only kind that
// may go to a server nothing proves (TCP).
type passwordQuery struct {
	host, database, user string
	port                 int
	bound                bool
}

// lookupPassword finds the password libpq would use: PGPASSWORD, else the
// first matching line of PGPASSFILE or ~/.pgpass. A password file that
// group or others may read is ignored, as libpq does. It returns the
// secret ("" when none) and a note on what was skipped.
func lookupPassword(getenv func(string) string, q passwordQuery) (secret, string) {
	if pw := getenv("PGPASSWORD"); pw != "" {
		return secret{pw, "PGPASSWORD"}, ""
	}
	path := getenv("PGPASSFILE")
	if path == "" {
		home := getenv("HOME")
		if home == "" {
			return secret{}, ""
		}
		path = filepath.Join(home, ".pgpass")
	}
	pf, note := readPassfile(path)
	if pf == nil {
		return secret{}, note
	}
	return matchPassfile(pf, path, q)
}

// readPassfile reads a password file, refusing one others may read.
func readPassfile(path string) (*pgpassfile.Passfile, string) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, ""
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Sprintf("password file %s ignored: group or others may read it (chmod 0600)", path)
	}
	pf, err := pgpassfile.ReadPassfile(path)
	if err != nil {
		return nil, fmt.Sprintf("password file %s: %v", path, err)
	}
	return pf, ""
}

// matchPassfile returns the first entry for q. For a bound query an entry
// with a wildcard host or port does not count: it is no licence to send
// the password to a server that nothing proves.
func matchPassfile(pf *pgpassfile.Passfile, path string, q passwordQuery) (secret, string) {
	port := strconv.Itoa(q.port)
	skipped := false
	for i, e := range pf.Entries {
		if !fieldMatch(e.Hostname, q.host) || !fieldMatch(e.Port, port) ||
			!fieldMatch(e.Database, q.database) || !fieldMatch(e.Username, q.user) {
			continue
		}
		if q.bound && (e.Hostname == "*" || e.Port == "*") {
			skipped = true
			continue
		}
		return secret{e.Password, fmt.Sprintf("%s entry %d", path, i+1)}, ""
	}
	if skipped {
		return secret{}, fmt.Sprintf("a wildcard entry of %s was not used: it does not name %s port %d", path, q.host, q.port)
	}
	return secret{}, ""
}

func fieldMatch(pattern, value string) bool { return pattern == "*" || pattern == value }
