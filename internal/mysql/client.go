package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dbmem/dbmem/internal/linux"
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

// defaultSockets are where servers usually listen when nothing else says.
var defaultSockets = []string{"/run/mysqld/mysqld.sock", "/var/run/mysqld/mysqld.sock", "/tmp/mysql.sock"}

// sockets lists where the server may listen: the configured socket, the
// sockets the process listens on, then the usual defaults. Each is tried
// directly and through /proc/PID/root (a server in another mount namespace).
func (c Connector) sockets(in *Instance) []string {
	var cands []string
	if c.Options.Socket != "" {
		return []string{c.Options.Socket}
	}
	if in.Socket != "" {
		cands = append(cands, in.Socket)
	}
	if l, err := linux.ListeningUnixSockets(c.FS, in.PID); err == nil {
		cands = append(cands, l...)
	}
	cands = append(cands, defaultSockets...)
	var out []string
	seen := map[string]bool{}
	for _, s := range cands {
		for _, p := range []string{s, c.FS.ProcPath(fmt.Sprint(in.PID), "root", s)} {
			if !seen[p] && c.FS.Exists(p) {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// endpoint is where to connect: a unix socket or a TCP address.
type endpoint struct{ net, addr string }

func (p endpoint) String() string {
	if p.net == "tcp" {
		return "tcp " + p.addr
	}
	return p.addr
}

// endpoints lists where to try: TCP when Host is set, else the sockets.
func (c Connector) endpoints(in *Instance) ([]endpoint, error) {
	if h := c.Options.Host; h != "" {
		return []endpoint{{"tcp", net.JoinHostPort(h, strconv.Itoa(in.port()))}}, nil
	}
	var out []endpoint
	for _, s := range c.sockets(in) {
		out = append(out, endpoint{"unix", s})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no unix socket of pid %d found (set --mysql-socket, or --mysql-host for TCP)", in.PID)
	}
	return out, nil
}

func (c Connector) connect(ctx context.Context, in *Instance) (*sql.DB, string, error) {
	eps, err := c.endpoints(in)
	if err != nil {
		return nil, "", err
	}
	client := readClientConf(c.FS, c.Options.HomeDir)
	var errs []string
	for _, ep := range eps {
		for _, u := range c.users(client) {
			db, err := c.open(ctx, ep, u, c.password(client))
			if err != nil {
				errs = append(errs, fmt.Sprintf("as %s via %s: %s", u, ep, shortError(err)))
				continue
			}
			ok, why := c.sameServer(ctx, db, in)
			if ok {
				return db, fmt.Sprintf("connected as %s via %s", u, ep), nil
			}
			db.Close()
			errs = append(errs, why)
			break
		}
	}
	return nil, "", errors.New(joinUnique(errs))
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

// sameServer checks that the socket leads to this process: the server's
// pid_file holds its PID (a default socket may belong to another server).
func (c Connector) sameServer(ctx context.Context, db *sql.DB, in *Instance) (bool, string) {
	var pidFile string
	if err := db.QueryRowContext(ctx, "SELECT @@pid_file").Scan(&pidFile); err != nil {
		return true, "" // cannot tell: accept
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return true, ""
	}
	if strings.TrimSpace(string(b)) != fmt.Sprint(in.PID) {
		return false, fmt.Sprintf("socket leads to another server (pid file %s holds %s)", pidFile, strings.TrimSpace(string(b)))
	}
	return true, ""
}

func (c Connector) users(client map[string]string) []string {
	if c.Options.User != "" {
		return []string{c.Options.User}
	}
	var out []string
	if u := os.Getenv("MYSQL_USER"); u != "" {
		out = append(out, u)
	}
	if u := client["user"]; u != "" {
		out = append(out, u)
	}
	if u, err := user.Current(); err == nil {
		out = append(out, u.Username)
	}
	return dedupe(append(out, "root"))
}

func (c Connector) password(client map[string]string) string {
	if c.Options.Password != "" {
		return c.Options.Password
	}
	if p, ok := os.LookupEnv("MYSQL_PWD"); ok {
		return p
	}
	return client["password"]
}

func (c Connector) open(ctx context.Context, ep endpoint, usr, pwd string) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = usr, pwd, ep.net, ep.addr
	cfg.Timeout = c.Options.Timeout
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
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

func dedupe(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
