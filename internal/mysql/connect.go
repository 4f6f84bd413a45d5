package mysql

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dbmem/dbmem/internal/servertrust"
	"github.com/dbmem/dbmem/internal/units"
)

// connect tries each endpoint (a unix socket only once proven to be the
// server's) and each user, and returns the first connection to this
// server, or every reason.
func (c Connector) connect(ctx context.Context, in *Instance) (*sql.DB, string, error) {
	eps, err := c.endpoints(in)
	if err != nil {
		return nil, "", err
	}
	client := readClientConf(c.FS, c.Options.HomeDir)
	var errs []string
	for _, ep := range eps {
		if ep.net == "unix" {
			if ep.proof = c.prove(in, ep); ep.proof.Failed() != "" {
				why := strings.ReplaceAll(ep.proof.Failed(), ep.addr, ep.name) // one reason per socket, whichever its name
				errs = append(errs, fmt.Sprintf("%s: not proven to be pid %d's socket: %s", ep.name, in.PID, why))
				continue
			}
		}
		for _, u := range c.users(client) {
			db, a, err := c.openAttempt(ctx, c.attempt(client, in, ep, u))
			if err != nil {
				errs = append(errs, fmt.Sprintf("as %s via %s: %s", u, ep.name0(), explain(err, a)))
				continue
			}
			if why := c.sameServer(ctx, db, in, ep); why != "" {
				db.Close()
				errs = append(errs, why)
				break
			}
			return db, fmt.Sprintf("connected as %s via %s (%s)", u, ep, describe(ep)), nil
		}
	}
	return nil, "", errors.New(joinUnique(errs) + grantHint(errs))
}

// name0 is the endpoint as messages name it.
func (p endpoint) name0() string {
	if p.net == "unix" && p.name != "" {
		return p.name
	}
	return p.String()
}

func describe(ep endpoint) string {
	if ep.net == "tcp" {
		return "TCP: the server's identity is not proven; its port and datadir were matched afterwards"
	}
	return summary(ep.proof)
}

// attempt is one connection's parameters.
type attempt struct {
	ep       endpoint
	user     string
	password string
	from     string // where the password came from
	withheld string // why none is given
	tls      bool   // TCP in TLS (required when a password may go)
	clear    bool   // mysql_clear_password allowed
}

// attempt decides the password and TLS of one attempt: a password only to
// a proven socket of a trusted account, or over TCP in TLS; in clear only
// over TLS or with --allow-cleartext-password.
func (c Connector) attempt(client map[string]string, in *Instance, ep endpoint, u string) attempt {
	a := attempt{ep: ep, user: u}
	trust := c.Options.Trust
	switch {
	case ep.net == "unix" && !ep.proof.Ready():
		a.withheld = "the server is not fully proven (" + ep.proof.UncheckedList() + ")"
	case ep.net == "unix" && !trust.Trusted(ep.proof.Account, "mysql"):
		acct := ep.proof.Account
		a.withheld = fmt.Sprintf("the server runs as %s, not a trusted account (trusted: %s; --server-account %s would trust it)", acct, trust.TrustedList("mysql"), acct)
	default:
		a.password, a.from, a.withheld = c.password(client, in, ep)
	}
	a.tls = ep.net == "tcp" && a.password != "" && !trust.AllowCleartext
	a.clear = trust.AllowCleartext || a.tls
	return a
}

// openAttempt opens a; over TCP, a server without TLS is asked again
// without the password. It returns the attempt as finally made.
func (c Connector) openAttempt(ctx context.Context, a attempt) (*sql.DB, attempt, error) {
	db, err := c.open(ctx, a)
	if err != nil && a.tls && strings.Contains(err.Error(), "TLS") {
		a.withheld = fmt.Sprintf("the server offers no TLS and dbmem sends no password over TCP in clear (--allow-cleartext-password allows it; the password came from %s)", a.from)
		a.password, a.tls, a.clear = "", false, false
		db, err = c.open(ctx, a)
	}
	return db, a, err
}

func (c Connector) open(ctx context.Context, a attempt) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = a.user, a.password, a.ep.net, a.ep.addr
	cfg.AllowCleartextPasswords = a.clear
	cfg.AllowNativePasswords = a.password == "" || a.ep.net == "tcp" || a.ep.proof.Ready()
	if a.tls {
		cfg.TLSConfig = "skip-verify"
	}
	if a.ep.proof != nil {
		want := a.ep.proof.Peer()
		cfg.DialFunc = func(ctx context.Context, _, addr string) (net.Conn, error) {
			return servertrust.DialUnix(ctx, addr, want)
		}
	}
	cfg.Timeout = c.Options.Timeout
	cfg.Timeout = cmp.Or(cfg.Timeout, 5*time.Second)
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

// sameServer checks, over TCP (a socket is proven before dialing), that
// the server that answered is this one: its port and datadir are the
// instance's. It reads no file the server names.
func (c Connector) sameServer(ctx context.Context, db *sql.DB, in *Instance, ep endpoint) string {
	if ep.net != "tcp" {
		return ""
	}
	var port int
	var dd string
	if err := db.QueryRowContext(ctx, "SELECT @@port, @@datadir").Scan(&port, &dd); err != nil {
		return fmt.Sprintf("via %s: cannot tell which server answered (%s): its settings are not used", ep, shortError(err))
	}
	if port != in.port() || in.DataDir != "" && path.Clean(dd) != path.Clean(in.DataDir) {
		return fmt.Sprintf("via %s: the server that answered (port %d, datadir %q) is not pid %d (port %d, datadir %q): its settings are not used",
			ep, port, dd, in.PID, in.port(), in.DataDir)
	}
	return ""
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
	return units.Unique(append(out, "root"))
}

// Open connects to the server in as Live does (its socket or port, the
// users tried in turn) and checks that the answer is that server; the
// caller closes the connection. It says how it connected.
func (c Connector) Open(ctx context.Context, in *Instance) (*sql.DB, string, error) {
	return c.connect(ctx, in)
}
