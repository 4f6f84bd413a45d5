package redact

import (
	"regexp"
	"strings"
)

// Redacted replaces a secret.
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
	// and U&'x' too; $$x$$ is dollarPasswords'), IDENTIFIED BY PASSWORD
	// '*hash', OPTIONS (password 'x').
	{re: regexp.MustCompile(`(?i)PASSWORD\s+(?:E|U&)?(` + quoted + `)`)},
	// ... IDENTIFIED BY 'new' REPLACE 'old' (MySQL 8): the old password.
	{re: regexp.MustCompile(`(?i)(?:IDENTIFIED|PASSWORD)\b[^;\n]*?\bREPLACE\s+(` + quoted + `)`)},
	// key=value (or key: value) whose key ends in password, passwd or
	// pwd: conninfo strings (primary_conninfo), option files ([client]
	// password=), PGPASSWORD=, MYSQL_PWD=, --password=. A value that is a
	// PASSWORD( call was handled above. A quote doubled inside quotes is
	// one quote (PgBouncer's [databases] password='it''s').
	{re: regexp.MustCompile(`(?i)\b[a-z0-9_]*(?:password|passwd|pwd)\s*[=:]\s*('(?:[^'\\\n]|\\.|'')*'|"(?:[^"\\\n]|\\.)*"|[^\s'",;&\\]+)`),
		bare: true, keep: isPasswordCall},
	// Tokens and keys as key=value (GITHUB_TOKEN=x, --api-key=x,
	// client_secret=x, AWS_SECRET_ACCESS_KEY=x): only with "=", since
	// "token: " and "secret: " are words in log messages too.
	{re: regexp.MustCompile(`(?i)(?:\b|--?)[a-z0-9_-]*(?:secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|passphrase|credentials?)\s*=\s*('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|[^\s'",;&\\]+)`),
		bare: true},
	// An HTTP Authorization header (curl -H, a logged request).
	{re: regexp.MustCompile(`(?i)\bauthorization:\s*(?:bearer|basic|token|digest)\s+([^\s'"]+)`), bare: true},
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

// Secrets replaces passwords in text and returns how many it replaced:
// key=value pairs whose key names a password, the password of a URI's
// user:password@, SQL that sets a password (PASSWORD '...', PASSWORD('...'),
// IDENTIFIED [WITH plugin] BY '...', SET PASSWORD FOR ... = '...') and
// mysql -p... in a command line.
func Secrets(s string) (string, int) {
	if !mayHoldSecret(s) {
		return s, 0
	}
	s, n := dollarPasswords(s)
	for _, r := range secretRules {
		var k int
		s, k = r.apply(s)
		n += k
	}
	return s, n
}

// dollarOpenRe is PASSWORD followed by a PostgreSQL dollar quote's opening
// tag ($$ or $tag$).
var dollarOpenRe = regexp.MustCompile(`(?i)PASSWORD\s+(\$[A-Za-z_]?[A-Za-z0-9_]*\$)`)

// dollarPasswords redacts PASSWORD $$x$$ and PASSWORD $tag$x$tag$ (RE2 has
// no back-references, so the closing tag is found by hand); a quote left
// open runs to the end of the line.
func dollarPasswords(s string) (string, int) {
	var b strings.Builder
	n, last := 0, 0
	for _, m := range dollarOpenRe.FindAllStringSubmatchIndex(s, -1) {
		if m[0] < last {
			continue
		}
		tag := s[m[2]:m[3]]
		body := s[m[3]:]
		end := strings.Index(body, tag)
		if nl := strings.IndexByte(body, '\n'); end < 0 || nl >= 0 && nl < end {
			end = max(nl, 0)
			if nl < 0 {
				end = len(body)
			}
		}
		if body[:end] == Redacted {
			continue
		}
		b.WriteString(s[last:m[3]])
		b.WriteString(Redacted)
		last, n = m[3]+end, n+1
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// triggers are words without which no rule matches: a process title such
// as "postgres: app shop [local] idle" skips every regular expression.
var triggers = []string{"pass", "pwd", "secret", "token", "key", "identified", "authorization", "credential", "://", "mysql", "mariadb"}

func mayHoldSecret(s string) bool {
	l := strings.ToLower(s)
	for _, t := range triggers {
		if strings.Contains(l, t) {
			return true
		}
	}
	return false
}
