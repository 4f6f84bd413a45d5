package capture

import (
	"bytes"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// Redacted replaces a secret in captured text.
const Redacted = "REDACTED"

// quoted is a string literal in single quotes (a quote inside doubled or
// backslashed), in double quotes, or one left open to the end of the line
// (a statement cut short in a log).
const quoted = `'(?:[^'\\\n]|\\.|'')*'|"(?:[^"\\\n]|\\.|"")*"|'[^'\n]*|"[^"\n]*`

// secretRule finds secrets: every capturing group of re is one, replaced
// by Redacted (quoted as the secret was, unless bare).
type secretRule struct {
	re   *regexp.Regexp
	bare bool
	// keep, when set, spares a match that is not a secret.
	keep func(secret string) bool
}

// secretRules, applied in order. Each pass sees the text the previous
// passes left, and a secret already replaced is not counted again.
var secretRules = []secretRule{
	// PASSWORD('x'), OLD_PASSWORD('x'): MySQL's SET PASSWORD = PASSWORD('x'),
	// MariaDB's IDENTIFIED VIA ... USING PASSWORD('x').
	{re: regexp.MustCompile(`(?i)PASSWORD\s*\(\s*(` + quoted + `)`)},
	// SET PASSWORD FOR 'u'@'h' = 'x'.
	{re: regexp.MustCompile(`(?i)\bSET\s+PASSWORD\s+FOR\s+[^=;\n]*?=\s*(` + quoted + `)`)},
	// IDENTIFIED BY 'x', IDENTIFIED WITH plugin BY 'x' (or AS 'hash'),
	// IDENTIFIED VIA plugin USING 'hash'.
	{re: regexp.MustCompile(`(?i)IDENTIFIED\s+(?:(?:WITH|VIA)\s+[\w'"\x60.]+\s+)?(?:BY|AS|USING)\s+(` + quoted + `)`)},
	// PASSWORD 'x': CREATE/ALTER ROLE ... [ENCRYPTED] PASSWORD 'x' (E'x'
	// too), IDENTIFIED BY PASSWORD '*hash', OPTIONS (password 'x').
	{re: regexp.MustCompile(`(?i)PASSWORD\s+E?(` + quoted + `)`)},
	// ... IDENTIFIED BY 'new' REPLACE 'old' (MySQL 8): the old password.
	{re: regexp.MustCompile(`(?i)(?:IDENTIFIED|PASSWORD)\b[^;\n]*?\bREPLACE\s+(` + quoted + `)`)},
	// key=value (or key: value) whose key ends in password, passwd or
	// pwd: conninfo strings (primary_conninfo), option files ([client]
	// password=), PGPASSWORD=, MYSQL_PWD=, --password=. A value that is a
	// PASSWORD( call was handled above.
	{re: regexp.MustCompile(`(?i)\b[a-z0-9_]*(?:password|passwd|pwd)\s*[=:]\s*('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|[^\s'",;&\\]+)`),
		bare: true, keep: isPasswordCall},
	// --pass=x, --passw=x ...: MySQL clients take any unique prefix of --password.
	{re: regexp.MustCompile(`(?i)--pass(?:w|wo|wor)?=(\S+)`), bare: true},
	// The password of user:password@host in a URI.
	{re: regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^:/@\s]*:([^@\s/]+)@`), bare: true},
	// mysql -pSECRET in a command line written out (a unit file, a cron
	// line, a log): -p is the password for MySQL/MariaDB programs (-P is
	// the port), and a port for PostgreSQL's, so only after a mysql or
	// mariadb program on the same line.
	{re: regexp.MustCompile(`(?m)(?:^|[\s/"'=])(?:mysql|mariadb)[\w-]*[ \t](?:[^\n]*?[ \t])?-p([^\s-]\S*)`), bare: true},
}

// isPasswordCall: "PASSWORD(" or "OLD_PASSWORD(" as a key=value's value is
// SQL (SET PASSWORD = PASSWORD('x')), whose argument another rule redacts.
func isPasswordCall(v string) bool {
	v = strings.ToUpper(v)
	return v == "PASSWORD(" || v == "OLD_PASSWORD("
}

func (r secretRule) apply(s string) (string, int) {
	var b strings.Builder
	n, last := 0, 0
	for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
		for g := 2; g+1 < len(m); g += 2 {
			lo, hi := m[g], m[g+1]
			if lo < last || strings.Trim(s[lo:hi], `'"`) == Redacted || r.keep != nil && r.keep(s[lo:hi]) {
				continue
			}
			b.WriteString(s[last:lo])
			b.WriteString(r.replacement(s[lo:hi]))
			last, n = hi, n+1
		}
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

func (r secretRule) replacement(secret string) string {
	if r.bare || secret == "" || secret[0] != '\'' && secret[0] != '"' {
		return Redacted
	}
	return string(secret[0]) + Redacted + string(secret[0])
}

// RedactSecrets replaces passwords in text and returns how many it replaced:
// key=value pairs whose key names a password, the password of a URI's
// user:password@, SQL that sets a password (PASSWORD '...', PASSWORD('...'),
// IDENTIFIED [WITH plugin] BY '...', SET PASSWORD FOR ... = '...') and
// mysql -p... in a command line.
func RedactSecrets(s string) (string, int) {
	n := 0
	for _, r := range secretRules {
		var k int
		s, k = r.apply(s)
		n += k
	}
	return s, n
}

// RedactCmdline redacts a /proc/PID/cmdline (arguments separated by NUL):
// --password=x, --password x, mysql's -px, and whatever RedactSecrets finds
// in each argument. It returns the new content and the count replaced.
func RedactCmdline(b []byte) ([]byte, int) {
	trail := bytes.HasSuffix(b, []byte{0})
	args := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	mysqlish := len(args) > 0 && isMySQLProgram(args[0])
	n := 0
	for i, a := range args {
		switch {
		case i > 0 && isBarePasswordFlag(args[i-1]) && a != "" && !strings.HasPrefix(a, "-"):
			args[i], n = Redacted, n+1
		case mysqlish && len(a) > 2 && strings.HasPrefix(a, "-p") && a[2] != '-':
			args[i], n = "-p"+Redacted, n+1
		default:
			var k int
			args[i], k = RedactSecrets(a)
			n += k
		}
	}
	out := strings.Join(args, "\x00")
	if trail {
		out += "\x00"
	}
	return []byte(out), n
}

// isBarePasswordFlag: --password, --passwd, -password, or a prefix of
// --password a MySQL client accepts (--pass, --passw ...).
func isBarePasswordFlag(a string) bool {
	a = strings.ToLower(a)
	switch {
	case a == "--passwd", a == "-password":
		return true
	case len(a) >= len("--pass") && strings.HasPrefix("--password", a):
		return true
	}
	return false
}

// isMySQLProgram reports whether argv[0] is a MySQL/MariaDB client or
// server, for which -pSECRET is a password (elsewhere -p is often a port).
func isMySQLProgram(argv0 string) bool {
	b := path.Base(strings.Fields(argv0 + " x")[0])
	return strings.Contains(b, "mysql") || strings.Contains(b, "mariadb")
}

// Redaction says what Redact changed.
type Redaction struct {
	// Dropped are files removed (process environments).
	Dropped []string `json:"dropped,omitempty"`
	// Changed are files in which secrets were replaced, with the count.
	Changed map[string]int `json:"changed,omitempty"`
}

// Redact removes what must not leave the host from the recorded files:
// any /proc/PID/environ (dbmem never reads it; dropped if something did),
// passwords in command lines (RedactCmdline) and in every other host file
// (configuration files: RedactSecrets). src are the roots the files were
// read from. Kernel files under /proc and /sys other than cmdline hold no
// secrets and are kept as read.
func (r *Recorder) Redact(src linux.FS) Redaction {
	red := Redaction{Changed: map[string]int{}}
	r.mu.Lock()
	defer r.mu.Unlock()
	for p, data := range r.files {
		tp := treePath(p, src)
		switch {
		case path.Base(p) == "environ":
			delete(r.files, p)
			red.Dropped = append(red.Dropped, tp)
		case strings.HasPrefix(tp, "proc/") && path.Base(p) == "cmdline":
			if out, n := RedactCmdline(data); n > 0 {
				r.files[p], red.Changed[tp] = out, n
			}
		case strings.HasPrefix(tp, "root/"):
			if out, n := RedactSecrets(string(data)); n > 0 {
				r.files[p], red.Changed[tp] = []byte(out), n
			}
		}
	}
	sort.Strings(red.Dropped)
	return red
}
