package mysql

import (
	"fmt"
	"net"
	"strconv"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// defaultSockets are where servers usually listen when nothing else says.
var defaultSockets = []string{"/run/mysqld/mysqld.sock", "/var/run/mysqld/mysqld.sock", "/tmp/mysql.sock"}

// endpoint is where to connect: a unix socket (proven before dialing) or
// a TCP address.
type endpoint struct {
	net, addr string
	// name is the socket's path as the server bound it (addr may reach it
	// through /proc/PID/root); messages use it.
	name  string
	proof *servertrust.Proof
}

func (p endpoint) String() string {
	if p.net == "tcp" {
		return "tcp " + p.addr
	}
	return p.addr
}

// socketCandidate is a socket path as bound and a path that reaches it.
type socketCandidate struct{ name, addr string }

// sockets lists where the server may listen: the configured socket and
// the sockets the process listens on, else the usual defaults. Each is
// tried directly and through /proc/PID/root (a server in another mount
// namespace).
func (c Connector) sockets(in *Instance) []socketCandidate {
	var cands []string
	if c.Options.Socket != "" {
		cands = []string{c.Options.Socket}
	} else {
		if in.Socket != "" {
			cands = append(cands, in.Socket)
		}
		if l, err := linux.ListeningUnixSockets(c.FS, in.PID); err == nil {
			cands = append(cands, l...)
		}
		if len(cands) == 0 {
			cands = defaultSockets
		}
	}
	var out []socketCandidate
	seen := map[string]bool{}
	for _, s := range cands {
		for _, p := range []string{s, c.FS.ProcPath(fmt.Sprint(in.PID), "root", s)} {
			if !seen[p] && c.FS.Exists(p) {
				seen[p] = true
				out = append(out, socketCandidate{name: s, addr: p})
			}
		}
	}
	return out
}

// endpoints lists where to try: TCP when Host is set, else the sockets.
func (c Connector) endpoints(in *Instance) ([]endpoint, error) {
	if h := c.Options.Host; h != "" {
		return []endpoint{{net: "tcp", addr: net.JoinHostPort(h, strconv.Itoa(in.port()))}}, nil
	}
	var out []endpoint
	for _, s := range c.sockets(in) {
		out = append(out, endpoint{net: "unix", addr: s.addr, name: s.name})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no unix socket of pid %d found (set --mysql-socket, or --mysql-host for TCP)", in.PID)
	}
	return out, nil
}
