package postgres

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"regexp"
	"strings"

	"github.com/dbmem/dbmem/internal/servertrust"
)

// spec decides one direct attempt: a password only to a proven server run
// by a trusted account (or over TCP, bound to the host and port, in TLS),
// and require_auth so that pgx sends nothing the rules do not allow.
func (c Connector) spec(t target, u, db string, o ConnOptions) dialSpec {
	d := dialSpec{target: t, user: u, database: db, timeout: o.Timeout, work: o.Work, stmts: o.Statements, contexts: c.contexts, backends: c.backends}
	q := passwordQuery{host: "localhost", port: t.port, database: db, user: u, bound: t.tcp}
	if t.tcp {
		q.host = t.host
	}
	switch {
	case !t.tcp && !t.proof.Ready():
		d.withheld = "the server is not fully proven (" + t.proof.UncheckedList() + ")"
	case !t.tcp && !o.Trust.Trusted(t.proof.Account, "postgres"):
		a := t.proof.Account
		d.withheld = fmt.Sprintf("the server runs as %s, not a trusted account (trusted: %s; --server-account %s would trust it)",
			a, o.Trust.TrustedList("postgres"), a)
	default:
		var note string
		d.password, note = lookupPassword(os.Getenv, q)
		if d.password.value == "" {
			d.withheld = joinNote("none was found (PGPASSWORD, PGPASSFILE, ~/.pgpass)", note)
		}
	}
	if t.tcp {
		d.sslMode = sslModeFor(os.Getenv, d.password.value != "", o.Trust.AllowCleartext)
	}
	d.requireAuth = requireAuthFor(d, o.Trust.AllowCleartext)
	return d
}

// requireAuthFor: with no password the server may not ask for one; a
// password never goes in clear without TLS unless allowed. TCP with a
// password runs in TLS (sslModeFor).
func requireAuthFor(d dialSpec, allowClear bool) string {
	switch {
	case d.password.value == "":
		return "none"
	case !d.tcp && !allowClear:
		return "!password"
	}
	return ""
}

func joinNote(s, note string) string {
	if note == "" {
		return s
	}
	return s + "; " + note
}

var requestedAuth = regexp.MustCompile(`server requested (\S+) authentication`)

// explain turns a failed attempt into its reason, without connection
// details that could hold a password.
func explain(err error, d dialSpec) string {
	var pe *servertrust.PeerError
	if errors.As(err, &pe) {
		return pe.Error()
	}
	if m := requestedAuth.FindStringSubmatch(err.Error()); m != nil {
		method := m[1]
		if method == "password" {
			method = "in clear"
		}
		if d.password.value == "" {
			return fmt.Sprintf("the server asked for a password (%s) and dbmem sent none: %s", method, d.withheld)
		}
		return "the server asked for the password in clear without TLS and dbmem did not send it (--allow-cleartext-password allows it; scram-sha-256 in pg_hba.conf is better)"
	}
	return shortPgError(err)
}

// grantHint says what to grant when the server refused the roles tried.
func grantHint(errs []string, t target, o ConnOptions) string {
	all := strings.Join(errs, " ")
	if !strings.Contains(all, "Peer authentication failed") && !strings.Contains(all, "does not exist") &&
		!strings.Contains(all, "no pg_hba.conf entry") {
		return ""
	}
	if os.Geteuid() == 0 && !t.tcp && t.proof.Account.Name != "" && (o.User != "" || os.Getenv("PGUSER") != "") {
		return fmt.Sprintf(". Without --pg-user and PGUSER, dbmem connects as the data directory's owner %s through its helper", t.proof.Account.Name)
	}
	if os.Geteuid() == 0 && !t.tcp && t.proof.Account.Name != "" {
		return fmt.Sprintf(". To let dbmem in as root: let OS user %[1]s connect as role %[1]s over the socket (pg_hba.conf: local all %[1]s peer), or give root a role: CREATE ROLE root LOGIN; GRANT pg_monitor TO root; and pg_hba.conf: local all root peer", t.proof.Account.Name)
	}
	me := "this user"
	if u, err := user.Current(); err == nil {
		me = u.Username
	}
	return fmt.Sprintf(`. To let OS user %[1]s read settings: CREATE ROLE "%[1]s" LOGIN; GRANT pg_monitor TO "%[1]s"; and in pg_hba.conf: local all %[1]s peer (or run dbmem as root: it connects as the data directory's owner)`, me)
}
