package pooler

import (
	"fmt"
	"strings"
)

// connPair is one key=value of a [databases] or [users] value.
type connPair struct{ Key, Value string }

// parseConnString splits a [databases] or [users] value as PgBouncer's
// loader does (cstr_get_pair): key=value pairs separated by spaces, a
// value either a run of non-spaces or quoted with ' (a doubled ' stands
// for one). An empty value is an error.
func parseConnString(s string) ([]connPair, error) {
	var out []connPair
	for {
		s = strings.TrimLeft(s, " \t\r\n\v\f")
		if s == "" {
			return out, nil
		}
		eq := strings.IndexByte(s, '=')
		sp := strings.IndexAny(s, " \t")
		if eq <= 0 || sp >= 0 && sp < eq && strings.TrimLeft(s[sp:], " \t")[0] != '=' {
			return out, fmt.Errorf("expected key=value at %q", clip(s))
		}
		key := strings.TrimRight(s[:eq], " \t")
		val, rest, err := connValue(s[eq+1:])
		if err != nil {
			return out, fmt.Errorf("%s: %w", key, err)
		}
		out = append(out, connPair{key, val})
		s = rest
	}
}

// connValue reads one value and returns what follows it.
func connValue(s string) (val, rest string, err error) {
	s = strings.TrimLeft(s, " \t\r\n\v\f")
	if !strings.HasPrefix(s, "'") {
		end := strings.IndexByte(s, ' ')
		if end < 0 {
			end = len(s)
		}
		if end == 0 {
			return "", "", fmt.Errorf("empty value")
		}
		return s[:end], s[end:], nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] != '\'':
			b.WriteByte(s[i])
		case i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case b.Len() == 0:
			return "", "", fmt.Errorf("empty value")
		default:
			return b.String(), s[i+1:], nil
		}
	}
	return "", "", fmt.Errorf("a quoted value without its closing quote")
}

// clip shortens text quoted in a message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
