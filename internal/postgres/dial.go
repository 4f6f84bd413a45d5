package postgres

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/servertrust"
)

// target is where one connection goes: a proven unix socket, or TCP.
type target struct {
	tcp   bool
	host  string // socket directory, or host name for TCP
	port  int
	proof *servertrust.Proof // unix only: the listener DialUnix requires
}

func (t target) String() string {
	if t.tcp {
		return fmt.Sprintf("tcp %s port %d", t.host, t.port)
	}
	return fmt.Sprintf("%s port %d", t.host, t.port)
}

// dialSpec is one connection attempt's parameters.
type dialSpec struct {
	target
	user, database string
	password       secret
	// withheld says why no password is given ("" when one is).
	withheld string
	// requireAuth is libpq's require_auth: "none" when no password is
	// given (the server may not ask for one), "!password" to refuse
	// sending it in clear.
	requireAuth string
	// sslMode for TCP: the user's PGSSLMODE, raised to "require" when a
	// password may be sent.
	sslMode string
	timeout time.Duration
	// work reads WorkStats too (ConnOptions.Work); stmts are run after
	// (ConnOptions.Statements).
	work  bool
	stmts []string
	// contexts is run once the server is checked (Connector.LogContexts).
	contexts *ContextsRequest
	// backends reads BackendActivity (Connector.Backends).
	backends *backendsRequest
}

// pgxConfig builds the connection's configuration from d alone: the
// password, the password file and the TLS mode are set here, not taken by
// pgx from the environment.
func pgxConfig(d dialSpec) (*pgx.ConnConfig, error) {
	timeout := d.timeout
	timeout = cmp.Or(timeout, 5*time.Second)
	ssl := "disable"
	if d.tcp {
		ssl = d.sslMode
	}
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d user=%s dbname=%s connect_timeout=%d sslmode=%s passfile=/dev/null",
		quoteConnValue(d.host), d.port, quoteConnValue(d.user), quoteConnValue(d.database), int(timeout.Seconds()+0.5), ssl))
	if err != nil {
		return nil, err
	}
	cfg.Password = d.password.value
	cfg.RequireAuth = d.requireAuth
	cfg.RuntimeParams["application_name"] = "dbmem"
	if d.proof != nil {
		want := d.proof.Peer()
		cfg.DialFunc = func(ctx context.Context, _, addr string) (net.Conn, error) {
			return servertrust.DialUnix(ctx, addr, want)
		}
	}
	return cfg, nil
}

func quoteConnValue(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// sslModeFor is the TLS mode of a TCP connection: PGSSLMODE (default
// prefer), raised to require when a password may be sent and cleartext
// is not allowed, so that the password never crosses the network in clear.
func sslModeFor(getenv func(string) string, withPassword, allowClear bool) string {
	m := getenv("PGSSLMODE")
	m = cmp.Or(m, "prefer")
	if withPassword && !allowClear && (m == "disable" || m == "allow" || m == "prefer") {
		return "require"
	}
	return m
}
