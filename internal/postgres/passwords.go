package postgres

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

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

// maxPassfileBytes bounds a password file: one line per server and
// account, a few hundred bytes in practice.
const maxPassfileBytes = 1 << 20

// readPassfile reads a password file, refusing one others may read and,
// as libpq does, one that is not a plain file. It is opened O_NONBLOCK:
// PGPASSFILE naming a FIFO used to block dbmem (and SIGTERM) in open(2).
func readPassfile(path string) (*pgpassfile.Passfile, string) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, ""
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, fmt.Sprintf("password file %s: %v", path, err)
	case !fi.Mode().IsRegular():
		return nil, fmt.Sprintf("password file %s ignored: not a plain file (%s)", path, fi.Mode().Type())
	case fi.Mode().Perm()&0o077 != 0:
		return nil, fmt.Sprintf("password file %s ignored: group or others may read it (chmod 0600)", path)
	case fi.Size() > maxPassfileBytes:
		return nil, fmt.Sprintf("password file %s ignored: %d bytes, more than the %d read", path, fi.Size(), maxPassfileBytes)
	}
	pf, err := pgpassfile.ParsePassfile(io.LimitReader(f, maxPassfileBytes))
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
