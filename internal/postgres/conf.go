package postgres

import (
	"github.com/dbmem/dbmem/internal/units"

	"bufio"
	"fmt"
	"io"
	"strings"
)

// confEntry is one "name = value" line of a postgresql.conf-style file, or an
// include directive (name "include", "include_if_exists", "include_dir").
type confEntry struct {
	Name, Value string
	Line        int
}

// parseConf parses postgresql.conf syntax: "name = value" or "name value",
// '#' comments, single-quoted values with ” or \' escapes. It never panics;
// a malformed line is an error naming the file and line.
func parseConf(r io.Reader, file string) ([]confEntry, error) {
	var out []confEntry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		name, value, ok, err := parseConfLine(sc.Text())
		if err != nil {
			return out, fmt.Errorf("%s line %d: %w", file, n, err)
		}
		if ok {
			out = append(out, confEntry{Name: strings.ToLower(name), Value: value, Line: n})
		}
	}
	return out, sc.Err()
}

func parseConfLine(line string) (name, value string, ok bool, err error) {
	s := strings.TrimSpace(line)
	if s == "" || s[0] == '#' {
		return "", "", false, nil
	}
	i := 0
	for i < len(s) && isNameChar(s[i]) {
		i++
	}
	if i == 0 {
		return "", "", false, fmt.Errorf("syntax error near %q", units.Trunc(s, 40))
	}
	name, s = s[:i], strings.TrimSpace(s[i:])
	s = strings.TrimSpace(strings.TrimPrefix(s, "="))
	value, err = confValue(s)
	if err != nil {
		return "", "", false, fmt.Errorf("%s: %w", name, err)
	}
	return name, value, true, nil
}

func isNameChar(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// confValue reads a quoted or bare value and ignores a trailing comment.
func confValue(s string) (string, error) {
	if s == "" || s[0] == '#' {
		return "", fmt.Errorf("missing value")
	}
	if s[0] != '\'' {
		v, _, _ := strings.Cut(s, "#")
		f := strings.Fields(v)
		if len(f) != 1 {
			return "", fmt.Errorf("unquoted value %q must be one word (quote it)", strings.TrimSpace(v))
		}
		return f[0], nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\'' && i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case s[i] == '\'':
			return b.String(), nil
		case s[i] == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return "", fmt.Errorf("unterminated quoted value")
}
