package redact

import (
	"bytes"
	"path"
	"regexp"
	"strings"
)

// Cmdline redacts a /proc/PID/cmdline (arguments separated by NUL) with
// Args. It returns the new content and the count replaced.
func Cmdline(b []byte) ([]byte, int) {
	trail := bytes.HasSuffix(b, []byte{0})
	args, n := argsCount(strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00"))
	out := strings.Join(args, "\x00")
	if trail {
		out += "\x00"
	}
	return []byte(out), n
}

// Args redacts a command line's arguments (a new slice): the value of a
// flag that names a secret (--password x, --token=x, --api-key x,
// --client-secret=x), the secrets of programs that take them in short
// flags (mysql -px, sshpass -p x, redis-cli -a x, curl -u user:x, mongo -p
// x), and whatever Secrets finds in each argument (key=value pairs,
// URIs, SQL). Applied twice it changes nothing more.
func Args(args []string) []string {
	out, _ := argsCount(args)
	return out
}

// Title is Args for a command line joined with spaces, as a process title
// is shown: the arguments split at NUL when the caller kept them, else at
// spaces.
func Title(args []string) string {
	return strings.TrimSpace(strings.Join(Args(args), " "))
}

func argsCount(in []string) ([]string, int) {
	args := append([]string(nil), in...)
	prog := ""
	if len(args) > 0 {
		prog = program(args[0])
	}
	n := 0
	for i, a := range args {
		if i > 0 && isValueFlag(prog, args[i-1]) && a != "" && !strings.HasPrefix(a, "-") && a != Redacted && !strings.HasSuffix(a, ":"+Redacted) {
			args[i], n = redactValue(prog, args[i-1], a), n+1
			continue
		}
		if i > 0 {
			if r, ok := joinedFlag(prog, a); ok {
				args[i], n = r, n+1
				continue
			}
		}
		var k int
		args[i], k = Secrets(a)
		n += k
	}
	return args, n + acrossArgs(args)
}

// acrossArgs redacts secrets that span arguments, as a shell splits
// unquoted text: IDENTIFIED BY 'x' or "Authorization: Bearer x" given as
// several words. Each run of up to four arguments is joined with spaces
// and searched; what Secrets replaces is replaced in the arguments it
// covers, which keep their count.
func acrossArgs(args []string) int {
	if _, m := Secrets(strings.Join(args, " ")); m == 0 {
		return 0 // the common case: one search of the whole line
	}
	n := 0
	for i := range args {
		for k := 2; k <= 4 && i+k <= len(args); k++ {
			joined := strings.Join(args[i:i+k], " ")
			out, m := Secrets(joined)
			if m == 0 {
				continue
			}
			lo, hi, rep := changed(joined, out)
			replaceSpan(args[i:i+k], lo, hi, rep)
			n += m
			break
		}
	}
	return n
}

// changed returns the span [lo, hi) of a that b replaces, and its
// replacement.
func changed(a, b string) (int, int, string) {
	lo := 0
	for lo < len(a) && lo < len(b) && a[lo] == b[lo] {
		lo++
	}
	suf := 0
	for suf < len(a)-lo && suf < len(b)-lo && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return lo, len(a) - suf, b[lo : len(b)-suf]
}

// replaceSpan replaces [lo, hi) of the space-joined args with rep: the
// first argument it touches gets rep, the others lose their part.
func replaceSpan(args []string, lo, hi int, rep string) {
	off := 0
	for j, a := range args {
		start, end := off, off+len(a)
		off = end + 1
		if end <= lo || start >= hi {
			continue
		}
		from, to := max(lo, start)-start, min(hi, end)-start
		args[j] = a[:from] + rep + a[to:]
		rep = ""
	}
}

// secretFlagRe is a long flag whose value is a secret: --password,
// --passwd, --token, --auth-token, --api-key, --client-secret,
// --passphrase, --access-key, --private-key, --credentials.
var secretFlagRe = regexp.MustCompile(`(?i)^--?[a-z0-9_-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?)$`)

// shortSecretFlags are the short flags whose next argument (or the rest
// of the argument) is a secret, by program.
var shortSecretFlags = map[string][]string{
	"mysql":   {"-p"},
	"sshpass": {"-p"},
	"redis":   {"-a"},
	"mongo":   {"-p"},
	"curl":    {"-u", "-U", "--user", "--proxy-user", "--oauth2-bearer"},
}

// program is the family of argv[0] whose short flags are known.
func program(argv0 string) string {
	b := path.Base(strings.Fields(argv0 + " x")[0])
	switch {
	case strings.Contains(b, "mysql") || strings.Contains(b, "mariadb"):
		return "mysql"
	case b == "sshpass":
		return "sshpass"
	case strings.HasPrefix(b, "redis-") || strings.HasPrefix(b, "valkey-") || strings.HasPrefix(b, "keydb-"):
		return "redis"
	case strings.HasPrefix(b, "mongo"):
		return "mongo"
	case b == "curl":
		return "curl"
	}
	return ""
}

// isValueFlag reports whether the argument after flag is a secret.
func isValueFlag(prog, flag string) bool {
	if isBarePasswordFlag(flag) || !strings.HasPrefix(strings.ToLower(flag), "--no-") && secretFlagRe.MatchString(flag) {
		return true
	}
	for _, f := range shortSecretFlags[prog] {
		if flag == f && prog != "mysql" { // mysql's bare -p prompts
			return true
		}
	}
	return false
}

// redactValue keeps curl's user name before the colon.
func redactValue(prog, flag, v string) string {
	if prog == "curl" && flag != "--oauth2-bearer" {
		if user, _, ok := strings.Cut(v, ":"); ok {
			return user + ":" + Redacted
		}
		return v // a user name alone: curl asks for the password
	}
	return Redacted
}

// joinedFlag redacts a short flag with its secret attached (-pSECRET,
// -aSECRET, -uuser:SECRET).
func joinedFlag(prog, a string) (string, bool) {
	for _, f := range shortSecretFlags[prog] {
		if len(f) != 2 || len(a) <= 2 || !strings.HasPrefix(a, f) || a[2] == '-' {
			continue
		}
		v := a[2:]
		if v == Redacted {
			return a, false
		}
		if prog == "curl" {
			user, secret, ok := strings.Cut(v, ":")
			if !ok || secret == Redacted {
				return a, false
			}
			return f + user + ":" + Redacted, true
		}
		return f + Redacted, true
	}
	return a, false
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
