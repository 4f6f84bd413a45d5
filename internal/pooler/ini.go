package pooler

import (
	"fmt"
	"strings"
)

// itemKind is what one line of a pgbouncer.ini holds.
type itemKind int

const (
	itemSection itemKind = iota + 1 // [name]
	itemPair                        // key = value
	itemInclude                     // %include path
	itemBad                         // a line PgBouncer would refuse
)

// iniItem is one meaningful line of a pgbouncer.ini: comments and blank
// lines are not items.
type iniItem struct {
	Kind  itemKind
	Line  int    // 1-based
	Name  string // the section, the key, or the included path
	Value string // the value of a pair; for itemBad, what is wrong
}

// maxLineBytes bounds one line: PgBouncer has no limit, but no setting
// it reads needs more (a [databases] line with a long connect_query fits).
const maxLineBytes = 64 << 10

// parseINI splits a pgbouncer.ini as libusual's cfparser reads it: a line
// starting (after blanks) with ';' or '#' is a comment (those characters
// are not special later in a line), "[name]" opens a section, "%include
// path" includes a file, and "key = value" sets a key whose name is made
// of letters, digits and "_.-*" or is quoted ('name' or "name", a doubled
// quote standing for one). The value is the rest of the line, trailing
// blanks removed. A line that is none of these is an itemBad: PgBouncer
// stops loading at it.
func parseINI(text string) []iniItem {
	var out []iniItem
	nul := strings.IndexByte(text, 0)
	if nul >= 0 {
		text = text[:nul]
	}
	for i, line := range strings.Split(text, "\n") {
		for _, it := range parseLine(strings.TrimRight(line, "\r")) {
			it.Line = i + 1
			out = append(out, it)
		}
	}
	if nul >= 0 {
		out = append(out, iniItem{Kind: itemBad, Line: strings.Count(text, "\n") + 1,
			Value: "a NUL byte: PgBouncer stops reading the file there"})
	}
	return out
}

// parseLine reads one line: nothing for blank lines and comments, two
// items for a section followed by more text on its line (libusual reads
// on after the "]" as if a new line began).
func parseLine(line string) []iniItem {
	s := strings.TrimLeft(line, " \t\v\f\r")
	switch {
	case len(line) > maxLineBytes:
		return []iniItem{{Kind: itemBad, Value: fmt.Sprintf("line longer than %d bytes", maxLineBytes)}}
	case s == "" || s[0] == '#' || s[0] == ';':
		return nil
	case isInclude(s):
		return []iniItem{{Kind: itemInclude, Name: strings.TrimSpace(s[len("%include"):])}}
	case s[0] == '[':
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return []iniItem{{Kind: itemBad, Value: "a section name without its closing ]"}}
		}
		return append([]iniItem{{Kind: itemSection, Name: s[1:end]}}, parseLine(s[end+1:])...)
	}
	it, _ := parsePair(s)
	return []iniItem{it}
}

// isInclude: "%include" followed by a blank (libusual requires one).
func isInclude(s string) bool {
	return strings.HasPrefix(s, "%include") && len(s) > len("%include") && (s[8] == ' ' || s[8] == '\t')
}

// parsePair reads "key = value".
func parsePair(s string) (iniItem, bool) {
	key, rest, ok := cutKey(s)
	if !ok {
		return iniItem{Kind: itemBad, Value: "not a section, an %include or key = value"}, true
	}
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, "=") {
		return iniItem{Kind: itemBad, Value: fmt.Sprintf("no = after the key %q", key)}, true
	}
	val := strings.TrimRight(strings.TrimLeft(rest[1:], " \t"), " \t\v\f\r")
	return iniItem{Kind: itemPair, Name: key, Value: val}, true
}

// cutKey reads a key: quoted, or a run of letters, digits and "_.-*".
func cutKey(s string) (key, rest string, ok bool) {
	if s[0] == '\'' || s[0] == '"' {
		return cutQuoted(s)
	}
	i := 0
	for i < len(s) && isKeyByte(s[i]) {
		i++
	}
	return s[:i], s[i:], i > 0
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_.-*", c) >= 0
}

// cutQuoted reads a quoted key; a doubled quote inside stands for one.
func cutQuoted(s string) (key, rest string, ok bool) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != q {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			b.WriteByte(q)
			i++
			continue
		}
		return b.String(), s[i+1:], b.Len() > 0
	}
	return "", "", false
}
