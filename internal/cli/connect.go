package cli

import (
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbmem/dbmem/internal/bundle"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/servertrust"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// defineConnFlags adds the flags that say how to reach the databases. No
// flag takes a password: a flag shows in ps. PostgreSQL's comes from
// PGPASSWORD or ~/.pgpass, MySQL's from MYSQL_PWD or ~/.my.cnf.
func (e *env) defineConnFlags(pf *pflag.FlagSet) {
	pf.StringVar(&e.conn.User, "pg-user", "", "PostgreSQL user (default: PGUSER, the OS user, then postgres)")
	pf.StringVar(&e.conn.Database, "pg-database", "", "PostgreSQL database to connect to (default: PGDATABASE or postgres)")
	pf.StringVar(&e.conn.Host, "pg-host", "", "PostgreSQL host or socket directory (default: from postmaster.pid)")
	pf.IntVar(&e.conn.Port, "pg-port", 0, "only connect to the instance on this port")
	pf.StringVar(&e.my.User, "mysql-user", "", "MySQL/MariaDB user (default: MYSQL_USER, [client] user of ~/.my.cnf, the OS user, then root); password from MYSQL_PWD or ~/.my.cnf")
	pf.StringVar(&e.my.Socket, "mysql-socket", "", "MySQL/MariaDB unix socket (default: the server's socket setting and the sockets it listens on, else /run/mysqld/mysqld.sock)")
	pf.StringVar(&e.my.Host, "mysql-host", "", "connect to MySQL/MariaDB over TCP to this host instead of the unix socket")
	pf.IntVar(&e.my.Port, "mysql-port", 0, "only connect to the MySQL/MariaDB server on this port (the TCP port with --mysql-host)")
	pf.BoolVar(&e.conn.Disabled, "no-connect", false, "never connect to databases; read configuration files only")
	pf.StringSliceVar(&e.conn.Trust.Accounts, "server-account", nil, "also send passwords to proven local servers run by this OS account (name or uid; repeatable; postgres, mysql and your own are trusted)")
	pf.BoolVar(&e.conn.Trust.AllowCleartext, "allow-cleartext-password", false, "allow sending a password in clear (PostgreSQL password method, mysql_clear_password) without TLS, and over TCP without TLS")
}

// trust is the password policy both engines follow (set on e.conn by the flags).
func (e *env) trust() servertrust.Policy { return e.conn.Trust }

// pgPort is the PostgreSQL instance chosen with --pg-port, else with
// PGPORT (on this host; not for a bundle read with --from); 0 keeps every
// instance.
func (e *env) pgPort() (int, error) {
	if e.conn.Port != 0 || e.from.b != nil {
		return e.conn.Port, nil
	}
	o, _, err := e.conn.WithEnv(os.Getenv)
	if err != nil {
		return 0, usageError{err}
	}
	return o.Port, nil
}

// snapshotOptions are the options of every snapshot a command takes: the
// roots to read and how to ask each engine for its settings. Every
// snapshot.Take of the CLI (directly, or through a sampler.Sampler or a
// capture) starts from them, so the connection flags apply everywhere.
func (e *env) snapshotOptions() snapshot.Options {
	o := snapshot.Options{FS: e.fs(), Live: e.live(), MySQLLive: e.mysqlLive(), PoolerConsole: e.poolerConsole()}
	if e.from.b != nil {
		at := e.from.b.Manifest.CapturedAt // a bundle's snapshot is of its capture, not of now
		o.Now = func() time.Time { return at }
		o.Owners = e.from.b.Owners() // who owned the instances, read on the captured host
	}
	return o
}

// live returns the PostgreSQL settings source: what a bundle recorded, a
// real connection on a live host, none when reading a captured tree or
// with --no-connect.
func (e *env) live() postgres.LiveSource {
	if e.from.b != nil {
		return e.from.b.Live() // what the servers said at capture time
	}
	c, ok := e.liveConnector()
	if !ok {
		return nil
	}
	return c
}

// liveConnector is the verified connection to PostgreSQL servers on this
// host (the X-ray, watch's per-backend view); ok is false when reading a
// capture or a copied tree, or with --no-connect.
func (e *env) liveConnector() (postgres.Connector, bool) {
	if e.from.b != nil || !e.fs().IsLive() || e.conn.Disabled {
		return postgres.Connector{}, false
	}
	return e.pgConnector(), true
}

// pgConnector connects to a PostgreSQL instance as the connection flags
// say (apply's and rollback's statements too).
func (e *env) pgConnector() postgres.Connector {
	return postgres.Connector{Options: e.conn, FS: e.fs(), Helper: postgres.NewHelper()}
}

// mysqlLive is live for MySQL/MariaDB servers.
func (e *env) mysqlLive() mysql.LiveSource {
	if e.from.b != nil {
		return e.from.b.MySQLLive()
	}
	if !e.fs().IsLive() || e.conn.Disabled {
		return nil
	}
	return e.mysqlConnector()
}

// mysqlConnector connects to MySQL/MariaDB servers as the flags say, with
// the trust policy (apply's live statements too).
func (e *env) mysqlConnector() mysql.Connector {
	o := e.my
	o.Trust = e.trust()
	return mysql.Connector{FS: e.fs(), Options: o}
}

// sampler is the sampler.Sampler of watch and exporter.
func (e *env) sampler() *sampler.Sampler {
	o := e.snapshotOptions()
	// The OOM guard is read at each discovery and carried into the
	// status samples, as the software beside the databases is: every
	// tick gives check's verdict.
	guard := e.from.b == nil
	return &sampler.Sampler{FS: o.FS, Live: o.Live, MySQLLive: o.MySQLLive, Check: e.checker(), Guard: guard}
}

// captureOptions fills the reading part of a capture's options.
func (e *env) captureOptions(o *bundle.CaptureOptions) {
	so := e.snapshotOptions()
	o.FS, o.Live, o.MySQLLive, o.PoolerConsole = so.FS, so.Live, so.MySQLLive, so.PoolerConsole
}
