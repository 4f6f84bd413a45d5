package mysql

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// Live is what the running server says over SQL.
type Live struct {
	Version    string            `json:"version"`
	Variables  map[string]string `json:"variables"`
	Status     map[string]string `json:"status"`
	PerfSchema []MemoryEvent     `json:"perf_schema,omitempty"`
	// As describes the connection: "connected as root via /run/mysqld/mysqld.sock".
	As string `json:"as"`
}

// LiveSource supplies what a connection would tell: a real connection
// (Connector) or a recording.
type LiveSource interface {
	Live(ctx context.Context, in *Instance) (Live, error)
}

// ConnOptions say how to connect. Empty fields follow the MySQL client's
// conventions: the user is User, then MYSQL_USER, the [client] user of
// ~/.my.cnf, the OS user, then root; the password is Password, then
// MYSQL_PWD, then the [client] password of ~/.my.cnf. dbmem has no password
// flag (a flag shows in ps), and the password is never printed.
type ConnOptions struct {
	User     string
	Password string
	// Socket forces the socket path; otherwise it is found from the server.
	Socket string
	// Host connects over TCP to Host and the server's port (Port when
	// set, else the port it is configured with, else 3306) instead of a
	// unix socket: for a server whose socket cannot be reached.
	Host string
	// Port, when set, keeps only the server configured with this port:
	// the others are not connected to (as --pg-port for PostgreSQL).
	Port     int
	Timeout  time.Duration
	Disabled bool
	// HomeDir holds .my.cnf (default: the current user's home).
	HomeDir string
	// Trust says which servers may receive a password and whether in
	// clear (--server-account, --allow-cleartext-password).
	Trust servertrust.Policy
}

// DefaultPort is the port a server listens on without a port setting.
const DefaultPort = 3306

// Connector reads Live over a real connection: the server's unix socket,
// or TCP when Options.Host is set.
type Connector struct {
	FS      linux.FS
	Options ConnOptions
}

// Live connects and reads version, variables, status and the
// performance_schema memory summary.
func (c Connector) Live(ctx context.Context, in *Instance) (Live, error) {
	if c.Options.Disabled {
		return Live{}, errors.New("not connecting (--no-connect)")
	}
	if !c.FS.IsLive() {
		return Live{}, errors.New("not connecting: reading a capture, not this host")
	}
	if p := c.Options.Port; p != 0 && p != in.port() {
		return Live{}, fmt.Errorf("not connecting: --mysql-port %d selects another server (this one is on %d)", p, in.port())
	}
	db, as, err := c.connect(ctx, in)
	if err != nil {
		return Live{}, err
	}
	defer db.Close()
	l, err := readLive(ctx, db)
	l.As = as
	return l, err
}

// readClientConf reads the [client] group of ~/.my.cnf (user, password, socket).
func readClientConf(fs linux.FS, home string) map[string]string {
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = h
		}
	}
	out := map[string]string{}
	if home == "" {
		return out
	}
	opts, _, _ := readOptionFiles(fs, []string{filepath.Join(home, ".my.cnf")}, nil,
		[]string{"client", "client-server", "client-mariadb"})
	for _, o := range opts {
		out[o.Key] = o.Value
	}
	return out
}

// shortError keeps the server's message and drops the driver's prefix; it
// never contains the password.
func shortError(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return fmt.Sprintf("%d %s", me.Number, me.Message)
	}
	return err.Error()
}

// joinUnique joins reasons with "; ", each once, in order: several names
// of one socket (a symlinked /var/run, /proc/PID/root/...) lead to the same
// server and give the same reason.
func joinUnique(reasons []string) string {
	seen := map[string]bool{}
	var out []string
	for _, r := range reasons {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return strings.Join(out, "; ")
}
