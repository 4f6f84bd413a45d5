package mysql

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/dbmem/dbmem/internal/servertrust"
)

// password is the password for ep: the option, MYSQL_PWD, then the
// [client] password of ~/.my.cnf when that group names no other server
// (its socket, port and host, when set, must be ep's; over TCP it must
// name the host). It returns the password, its source and, when there is
// none, why.
func (c Connector) password(client map[string]string, in *Instance, ep endpoint) (string, string, string) {
	if c.Options.Password != "" {
		return c.Options.Password, "the password option", ""
	}
	if p, ok := os.LookupEnv("MYSQL_PWD"); ok && p != "" {
		return p, "MYSQL_PWD", ""
	}
	p := client["password"]
	if p == "" {
		return "", "", "none was found (MYSQL_PWD, ~/.my.cnf)"
	}
	if why := clientNamesOther(client, in, ep); why != "" {
		return "", "", "the password of ~/.my.cnf is not for this server: " + why
	}
	return p, "~/.my.cnf", ""
}

// clientNamesOther says why the [client] group is bound to another
// server, "" when it applies to ep.
func clientNamesOther(client map[string]string, in *Instance, ep endpoint) string {
	host, port, sock := client["host"], client["port"], client["socket"]
	if port != "" && port != strconv.Itoa(in.port()) {
		return "it names port " + port
	}
	if ep.net == "tcp" {
		if h, _, err := net.SplitHostPort(ep.addr); err != nil || host != h {
			return "over TCP it goes only to a host the group names"
		}
		return ""
	}
	if host != "" && host != "localhost" {
		return "it names host " + host
	}
	if sock != "" && sock != ep.name && !sameSocket(sock, ep.addr) {
		return "it names socket " + sock
	}
	return ""
}

func sameSocket(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// explain turns a failed attempt into its reason; it never holds the password.
func explain(err error, a attempt) string {
	var pe *servertrust.PeerError
	switch {
	case errors.As(err, &pe):
		return pe.Error()
	case errors.Is(err, mysql.ErrCleartextPassword):
		return "the server asked for the password in clear (mysql_clear_password) without TLS and dbmem did not send it (--allow-cleartext-password allows it)"
	case errors.Is(err, mysql.ErrNativePassword):
		return "the server asked for mysql_native_password and dbmem did not answer it"
	}
	s := shortError(err)
	if a.password == "" && a.withheld != "" && strings.Contains(s, "Access denied") {
		s += "; no password sent: " + a.withheld
	}
	return s
}

// grantHint says what to grant when the server refused this OS user.
func grantHint(errs []string) string {
	u, err := user.Current()
	if err != nil || os.Geteuid() == 0 || !strings.Contains(strings.Join(errs, " "), "Access denied for user '"+u.Username+"'") {
		return ""
	}
	return fmt.Sprintf(". To let OS user %[1]s read settings over the socket: CREATE USER '%[1]s'@'localhost' IDENTIFIED VIA unix_socket (MySQL: IDENTIFIED WITH auth_socket); GRANT SELECT ON performance_schema.* TO '%[1]s'@'localhost'", u.Username)
}
