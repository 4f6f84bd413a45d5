package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/asowner"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/units"
)

// Connector reads Live over a real connection, only to a server proven to
// be the instance found in /proc (see docs/connections.md).
type Connector struct {
	Options ConnOptions
	// FS is the host whose /proc proves the server (zero: this host).
	FS linux.FS
	// Helper, when set and dbmem runs as root, connects as the data
	// directory's owner through dbmem's own binary, as `sudo -u postgres
	// psql` would (peer authentication). nil: no helper.
	Helper *asowner.Runner
	// contexts, when set, is run on the connection once it is checked
	// (LogContexts).
	contexts *ContextsRequest
	// backends, when set, reads every backend's activity and query too
	// (Backends).
	backends *backendsRequest
}

func (c Connector) fs() linux.FS { return c.FS.OrDefault() }

// Live connects to the instance and reads version, settings and activity.
// PGHOST and PGPORT apply where the options do not say (WithEnv).
func (c Connector) Live(ctx context.Context, in *Instance) (Live, error) {
	if c.Options.Disabled {
		return Live{}, errors.New("not connecting (--no-connect)")
	}
	o, from, err := c.Options.WithEnv(os.Getenv)
	if err != nil {
		return Live{}, fmt.Errorf("not connecting: %w", err)
	}
	port, err := choosePort(in, o.Port, from)
	if err != nil {
		return Live{}, err
	}
	t, err := c.target(in, o.Host, port)
	if err != nil {
		return Live{}, err
	}
	o.Timeout = cmp.Or(o.Timeout, 5*time.Second)
	return c.connect(ctx, in, t, o)
}

// choosePort is the instance's port, or the one the user gave when the
// instance's is unknown (checked after connecting). It never guesses.
func choosePort(in *Instance, given int, from string) (int, error) {
	switch {
	case in.Port != 0 && given != 0 && given != in.Port:
		return 0, fmt.Errorf("not connecting: %s %d selects another instance", from, given)
	case in.Port != 0:
		return in.Port, nil
	case given != 0:
		return given, nil
	}
	return 0, fmt.Errorf("not connecting: the port of postmaster %d is unknown (%s); dbmem does not guess one (--pg-port names it)",
		in.PostmasterPID, in.gapWhy("postmaster.pid", "postmaster.pid not read"))
}

// gapWhy is why what could not be read, else dflt.
func (in *Instance) gapWhy(what, dflt string) string {
	for _, g := range in.Gaps {
		if g.What == what {
			return what + ": " + g.Why
		}
	}
	return dflt
}

// target is the socket (proven first) or, with a host name, TCP.
func (c Connector) target(in *Instance, host string, port int) (target, error) {
	if host != "" && !strings.HasPrefix(host, "/") {
		return target{tcp: true, host: host, port: port}, nil
	}
	dir := host
	if dir == "" {
		dir = in.socketDir()
	}
	if dir == "" {
		return target{}, fmt.Errorf("not connecting: the socket directory of postmaster %d is unknown (%s); --pg-host names it",
			in.PostmasterPID, in.gapWhy("postmaster.pid", "postmaster.pid not read"))
	}
	t := target{host: dir, port: port, proof: proveLocal(c.fs(), in, dir, port)}
	if f := t.proof.Failed(); f != "" {
		return target{}, fmt.Errorf("not connecting: the server is not proven to be postmaster %d: %s", in.PostmasterPID, f)
	}
	return t, nil
}

// socketDir is the socket directory from postmaster.pid, else the first
// of unix_socket_directories when a file or the command line sets it.
func (in *Instance) socketDir() string {
	if in.SocketDir != "" {
		return in.SocketDir
	}
	s, ok := in.Settings["unix_socket_directories"]
	if !ok || s.Source == FromDefault {
		return ""
	}
	first, _, _ := strings.Cut(s.Value, ",")
	first = strings.Trim(strings.TrimSpace(first), `"`)
	if !strings.HasPrefix(first, "/") {
		return ""
	}
	return first
}

// candidateUsers: the given user, else PGUSER, the OS user, then "postgres".
func candidateUsers(o ConnOptions) []string {
	if o.User != "" {
		return []string{o.User}
	}
	var out []string
	if u := os.Getenv("PGUSER"); u != "" {
		out = append(out, u)
	}
	if u, err := user.Current(); err == nil {
		out = append(out, u.Username)
	}
	return units.Unique(append(out, "postgres"))
}

// database is the database to connect to: the option, PGDATABASE, postgres.
func database(o ConnOptions) string {
	if o.Database != "" {
		return o.Database
	}
	if db := os.Getenv("PGDATABASE"); db != "" {
		return db
	}
	return "postgres"
}
