package pooler

import (
	"cmp"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/postgres"
)

// Target is one PostgreSQL instance as poolers address it.
type Target struct {
	// Port is the instance's port (its sockets' and its TCP listeners').
	Port int `json:"port"`
	// SocketDirs are the directories of its unix sockets.
	SocketDirs []string `json:"socket_dirs,omitempty"`
	// ListenAddresses is listen_addresses ("localhost", "*", "10.0.0.5");
	// nil when unknown: a pool on a loopback address and the port is then
	// counted, and said.
	ListenAddresses []string `json:"listen_addresses,omitempty"`
	// Addresses are more names or addresses that reach it (given by the
	// user); dbmem resolves no names.
	Addresses []string `json:"addresses,omitempty"`
}

// TargetOf is an instance's target: its port, its socket directory and
// unix_socket_directories, and listen_addresses when they were read.
func TargetOf(in *postgres.Instance) Target {
	t := Target{Port: in.Port}
	if in.SocketDir != "" {
		t.SocketDirs = append(t.SocketDirs, in.SocketDir)
	}
	if s, ok := in.Settings["unix_socket_directories"]; ok && s.Source != postgres.FromDefault {
		for _, d := range strings.Split(s.Value, ",") {
			if d = strings.TrimSpace(d); d != "" && !slices.Contains(t.SocketDirs, d) {
				t.SocketDirs = append(t.SocketDirs, d)
			}
		}
	}
	if s, ok := in.Settings["listen_addresses"]; ok && s.Source != postgres.FromDefault {
		t.ListenAddresses = []string{}
		for _, a := range strings.Split(s.Value, ",") {
			if a = strings.TrimSpace(a); a != "" {
				t.ListenAddresses = append(t.ListenAddresses, a)
			}
		}
	}
	return t
}

func (t Target) String() string {
	s := "port " + strconv.Itoa(t.Port)
	if len(t.SocketDirs) > 0 {
		s += " (sockets in " + strings.Join(t.SocketDirs, ", ") + ")"
	}
	return s
}

// reach says whether a pooler's destination is the target: "yes", "no",
// or "unknown" (a host name or address dbmem cannot tie to it).
type reach int

const (
	reachNo reach = iota
	reachYes
	reachUnknown
)

// reaches decides one destination: host as the pooler has it ("" means
// its default socket directory sockDir; "/dir" a socket directory;
// "@name" an abstract socket; else a TCP host), and port.
func (t Target) reaches(host string, port int, sockDir string) reach {
	if port != t.Port || t.Port == 0 {
		return reachNo
	}
	host = cmp.Or(host, sockDir)
	switch {
	case strings.HasPrefix(host, "/"):
		return t.boolReach(t.hasSocketDir(host))
	case strings.HasPrefix(host, "@"):
		return t.boolReach(slices.Contains(t.SocketDirs, host))
	case isLoopback(host):
		return t.boolReach(t.ListenAddresses == nil || t.listensOnLoopback())
	case slices.Contains(t.Addresses, host) || slices.Contains(t.ListenAddresses, host):
		return reachYes
	}
	return reachUnknown
}

func (t Target) boolReach(ok bool) reach {
	if ok {
		return reachYes
	}
	return reachNo
}

// hasSocketDir compares directories as written, with /var/run and /run
// taken as one (Debian links them).
func (t Target) hasSocketDir(dir string) bool {
	norm := func(d string) string {
		d = path.Clean(d)
		if d == "/var/run" || strings.HasPrefix(d, "/var/run/") {
			d = d[len("/var"):]
		}
		return d
	}
	for _, d := range t.SocketDirs {
		if norm(d) == norm(dir) {
			return true
		}
	}
	return false
}

// listensOnLoopback: listen_addresses covers 127.0.0.1 or ::1.
func (t Target) listensOnLoopback() bool {
	for _, a := range t.ListenAddresses {
		if a == "*" || a == "0.0.0.0" || a == "::" || isLoopback(a) {
			return true
		}
	}
	return false
}

// isLoopback: localhost, 127.0.0.0/8, ::1.
func isLoopback(host string) bool {
	h := strings.Trim(host, "[]")
	if h == "localhost" || h == "ip6-localhost" || h == "localhost.localdomain" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// reachesList decides a comma-separated host list (PgBouncer connects to
// each in turn): the target when any host is, unknown when one may be.
func (t Target) reachesList(hosts string, port int, sockDir string) reach {
	best := reachNo
	for _, h := range strings.Split(hosts, ",") {
		switch t.reaches(strings.TrimSpace(h), port, sockDir) {
		case reachYes:
			return reachYes
		case reachUnknown:
			best = reachUnknown
		}
	}
	return best
}
