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

var (
	// secretKV is key=value (or key: value) whose key ends in password,
	// passwd or pwd: conninfo strings (primary_conninfo), option files
	// ([client] password=), PGPASSWORD=, MYSQL_PWD=, --password=.
	secretKV = regexp.MustCompile(`(?i)\b([a-z0-9_]*(?:password|passwd|pwd))(\s*[=:]\s*)('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|[^\s'",;&\\]+)`)
	// uriCred is the password of user:password@host in a URI.
	uriCred = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^:/@\s]*:)([^@\s/]+)@`)
	// sqlPassword is PASSWORD '...' (CREATE/ALTER ROLE) and IDENTIFIED BY
	// '...' (MySQL) in SQL text.
	sqlPassword = regexp.MustCompile(`(?i)(PASSWORD|IDENTIFIED\s+BY)(\s+)('(?:[^']|'')*'|"[^"]*")`)
)

// RedactSecrets replaces passwords in text and returns how many it replaced:
// key=value pairs whose key names a password, the password of a URI's
// user:password@, and SQL PASSWORD '...' / IDENTIFIED BY '...'.
func RedactSecrets(s string) (string, int) {
	n := 0
	s = secretKV.ReplaceAllStringFunc(s, func(m string) string {
		n++
		sub := secretKV.FindStringSubmatch(m)
		return sub[1] + sub[2] + Redacted
	})
	s = uriCred.ReplaceAllStringFunc(s, func(m string) string {
		n++
		return uriCred.FindStringSubmatch(m)[1] + Redacted + "@"
	})
	s = sqlPassword.ReplaceAllStringFunc(s, func(m string) string {
		n++
		sub := sqlPassword.FindStringSubmatch(m)
		return sub[1] + sub[2] + "'" + Redacted + "'"
	})
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

func isBarePasswordFlag(a string) bool {
	switch strings.ToLower(a) {
	case "--password", "--passwd", "-password", "--pass":
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
