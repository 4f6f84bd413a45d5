package redact

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// planted is appended to fuzzed logs: whatever precedes it, it must not
// survive redaction.
const planted = "hunter2zz"

func FuzzCmdline(f *testing.F) {
	f.Add([]byte("mysql\x00-phunter2\x00"))
	f.Add([]byte("app\x00--password\x00hunter2\x00"))
	f.Add([]byte("psql\x00postgresql://u:hunter2@h/db\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		out, _ := Cmdline(b)
		if strings.Count(string(out), "\x00") != strings.Count(string(b), "\x00") {
			t.Errorf("argument count changed: %q -> %q", b, out)
		}
		if again, _ := Cmdline(out); !bytes.Equal(again, out) {
			t.Errorf("not idempotent (a replayed bundle would show another title): %q -> %q -> %q", b, out, again)
		}
		if bytes.Contains(b, []byte(planted)) {
			return
		}
		in := append(append([]byte(nil), b...), []byte("\x00--password="+planted)...)
		if out, _ := Cmdline(in); bytes.Contains(out, []byte(planted)) {
			t.Errorf("a password survived: %q", out)
		}
	})
}

var wordRe = regexp.MustCompile(`^[A-Za-z0-9]{6,40}$`)

func FuzzSecrets(f *testing.F) {
	f.Add("host=h ", "hunter2", " port=5432")
	f.Add("ALTER ROLE x ", "secret99", "")
	f.Add("'", "secret98", "')")
	f.Fuzz(func(t *testing.T, before, secret, after string) {
		if !wordRe.MatchString(secret) || strings.Contains(before+after, secret) || strings.Contains(Redacted, secret) {
			return
		}
		for _, s := range []string{before + "password=" + secret + " " + after, before + "PASSWORD '" + secret + "'" + after,
			before + " postgres://u:" + secret + "@h/db " + after, before + "SET PASSWORD = PASSWORD('" + secret + "')" + after,
			before + " IDENTIFIED BY '" + secret + "'" + after, before + " IDENTIFIED WITH mysql_native_password BY \"" + secret + "\"" + after,
			before + "\nSET PASSWORD FOR 'u'@'h' = '" + secret + "'" + after, before + "\nmysqldump -u root -p" + secret + " db" + after} {
			if out, _ := Secrets(s); strings.Contains(out, secret) {
				t.Errorf("Secrets(%q) = %q keeps the secret", s, out)
			}
		}
	})
}
