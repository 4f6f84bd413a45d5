package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
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
// conventions: MYSQL_USER... is not one, so the user is --mysql-user, then
// the [client] user of ~/.my.cnf, the OS user, then root; the password is
// MYSQL_PWD or the [client] password of ~/.my.cnf. It is never printed.
type ConnOptions struct {
	User     string
	Password string
	// Socket forces the socket path; otherwise it is found from the server.
	Socket   string
	Timeout  time.Duration
	Disabled bool
	// HomeDir holds .my.cnf (default: the current user's home).
	HomeDir string
}

// Connector reads Live over a real connection through the server's unix socket.
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
	db, as, err := c.connect(ctx, in)
	if err != nil {
		return Live{}, err
	}
	defer db.Close()
	l, err := readLive(ctx, db)
	l.As = as
	return l, err
}

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
	cands = append(cands, "/run/mysqld/mysqld.sock", "/var/run/mysqld/mysqld.sock", "/tmp/mysql.sock")
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

func (c Connector) connect(ctx context.Context, in *Instance) (*sql.DB, string, error) {
	socks := c.sockets(in)
	if len(socks) == 0 {
		return nil, "", fmt.Errorf("no unix socket of pid %d found (set --mysql-socket)", in.PID)
	}
	client := readClientConf(c.FS, c.Options.HomeDir)
	var errs []string
	for _, sock := range socks {
		for _, u := range c.users(client) {
			db, err := c.open(ctx, sock, u, c.password(client))
			if err != nil {
				errs = append(errs, fmt.Sprintf("as %s via %s: %s", u, sock, shortError(err)))
				continue
			}
			ok, why := c.sameServer(ctx, db, in)
			if ok {
				return db, fmt.Sprintf("connected as %s via %s", u, sock), nil
			}
			db.Close()
			errs = append(errs, why)
			break
		}
	}
	return nil, "", errors.New(strings.Join(errs, "; "))
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

func (c Connector) open(ctx context.Context, sock, usr, pwd string) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = usr, pwd, "unix", sock
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
