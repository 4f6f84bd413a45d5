package dblog

import (
	"regexp"
	"sort"
	"strings"
)

// maxPrefixRoles bounds the role names a prefix matcher lists; with more,
// %u matches any text (the shortest that fits).
const maxPrefixRoles = 2000

// PrefixMatcher reads the user (%u) out of a stderr line's prefix, as the
// server's log_line_prefix wrote it. Role names may hold spaces, quotes or
// "@" and PostgreSQL prints them raw: %u matches one of the known role
// names (longest first), so "app user@db" reads as the role "app user".
type PrefixMatcher struct {
	re   *regexp.Regexp
	user int
}

// NewPrefixMatcher compiles log_line_prefix. It returns nil when the
// prefix has no %u (the user is not in the log) or cannot be compiled.
func NewPrefixMatcher(logLinePrefix string, roles []string) *PrefixMatcher {
	pat, ok := prefixPattern(logLinePrefix, rolePattern(roles))
	if !ok {
		return nil
	}
	re, err := regexp.Compile(`^\s*` + pat + `\s*$`)
	if err != nil {
		return nil
	}
	return &PrefixMatcher{re: re, user: re.SubexpIndex("u")}
}

// User returns the role a line's prefix names, "" when it does not match.
func (m *PrefixMatcher) User(prefix string) string {
	if m == nil {
		return ""
	}
	g := m.re.FindStringSubmatch(prefix)
	if g == nil {
		return ""
	}
	return g[m.user]
}

func rolePattern(roles []string) string {
	if len(roles) == 0 || len(roles) > maxPrefixRoles {
		return `.*?`
	}
	r := append([]string(nil), roles...)
	sort.Slice(r, func(i, j int) bool { return len(r[i]) > len(r[j]) })
	q := make([]string, 0, len(r))
	for _, s := range r {
		if s != "" {
			q = append(q, regexp.QuoteMeta(s))
		}
	}
	return "(?:" + strings.Join(q, "|") + ")"
}

// prefixPattern translates log_line_prefix's escapes: %u the user, %p a
// number, %% a percent sign, %q "the rest only for a session" (optional),
// any other escape some text; spaces around the user and the PID allow
// padding (%-10u).
func prefixPattern(prefix, user string) (string, bool) {
	var b strings.Builder
	hasUser, optional := false, 0
	for i := 0; i < len(prefix); i++ {
		c := prefix[i]
		if c != '%' || i+1 >= len(prefix) {
			b.WriteString(regexp.QuoteMeta(string(c)))
			continue
		}
		j := i + 1
		for j < len(prefix) && (prefix[j] == '-' || prefix[j] >= '0' && prefix[j] <= '9') {
			j++
		}
		if j >= len(prefix) {
			break
		}
		switch esc := prefix[j]; {
		case esc == '%':
			b.WriteString("%")
		case esc == 'q':
			b.WriteString("(?:")
			optional++
		case esc == 'u' && !hasUser:
			hasUser = true
			b.WriteString(`\s*(?P<u>` + user + `)\s*`)
		case esc == 'p':
			b.WriteString(`\s*\d*\s*`)
		default:
			b.WriteString(`.*?`)
		}
		i = j
	}
	b.WriteString(strings.Repeat(")?", optional))
	return b.String(), hasUser
}
