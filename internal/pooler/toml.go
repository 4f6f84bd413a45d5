package pooler

import (
	"fmt"
	"strconv"
	"strings"
)

// tomlValue is a value of the TOML subset pgcat's files use: a string,
// an int64, a bool, a float64 or a []any of them.
type tomlValue = any

// tomlKey is one key = value with the table it is in.
type tomlKey struct {
	Table []string // ["pools", "app", "users", "0"]
	Key   string
	Value tomlValue
	Line  int
}

// parseTOML reads the subset of TOML pgcat.toml files use: [dotted.tables]
// (bare or quoted parts), key = value with basic and literal strings,
// integers, floats, booleans and arrays (over several lines too), and #
// comments. Anything else (multi-line strings, inline tables, arrays of
// tables, dates) is an error naming its line: said, not guessed.
func parseTOML(text string) ([]tomlKey, error) {
	p := &tomlParser{s: text, line: 1}
	var table []string
	var out []tomlKey
	for {
		p.skipBlank(true)
		if p.eof() {
			return out, nil
		}
		if p.peek() == '[' {
			t, err := p.tableHeader()
			if err != nil {
				return out, p.errf("%v", err)
			}
			table = t
		} else {
			line := p.line
			k, v, err := p.keyValue()
			if err != nil {
				return out, p.errf("%v", err)
			}
			out = append(out, tomlKey{Table: table, Key: k, Value: v, Line: line})
		}
		p.skipBlank(false)
		if !p.eof() && p.peek() != '\n' {
			return out, p.errf("unexpected %q after the value", clip(p.rest()))
		}
	}
}

type tomlParser struct {
	s    string
	i    int
	line int
}

func (p *tomlParser) eof() bool    { return p.i >= len(p.s) }
func (p *tomlParser) peek() byte   { return p.s[p.i] }
func (p *tomlParser) rest() string { return p.s[p.i:min(len(p.s), p.i+40)] }

func (p *tomlParser) errf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", p.line, fmt.Sprintf(format, args...))
}

// skipBlank skips spaces, tabs and comments, and newlines when nl is set.
func (p *tomlParser) skipBlank(nl bool) {
	for !p.eof() {
		switch c := p.peek(); {
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '#':
			for !p.eof() && p.peek() != '\n' {
				p.i++
			}
		case c == '\n' && nl:
			p.i++
			p.line++
		default:
			return
		}
	}
}

// tableHeader reads [a.b."c"].
func (p *tomlParser) tableHeader() ([]string, error) {
	p.i++
	if !p.eof() && p.peek() == '[' {
		return nil, fmt.Errorf("arrays of tables ([[...]]) are not read")
	}
	var parts []string
	for {
		p.skipBlank(false)
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		parts = append(parts, k)
		p.skipBlank(false)
		if p.eof() {
			return nil, fmt.Errorf("a table name without its closing ]")
		}
		switch p.peek() {
		case '.':
			p.i++
		case ']':
			p.i++
			return parts, nil
		default:
			return nil, fmt.Errorf("unexpected %q in a table name", p.peek())
		}
	}
}

// key reads a bare or quoted key.
func (p *tomlParser) key() (string, error) {
	if !p.eof() && (p.peek() == '"' || p.peek() == '\'') {
		return p.str()
	}
	start := p.i
	for !p.eof() && (isKeyByte(p.peek()) && p.peek() != '.' && p.peek() != '*') {
		p.i++
	}
	if p.i == start {
		return "", fmt.Errorf("a key expected at %q", clip(p.rest()))
	}
	return p.s[start:p.i], nil
}

// keyValue reads key = value (dotted keys are not read).
func (p *tomlParser) keyValue() (string, tomlValue, error) {
	k, err := p.key()
	if err != nil {
		return "", nil, err
	}
	p.skipBlank(false)
	if p.eof() || p.peek() != '=' {
		return "", nil, fmt.Errorf("= expected after %q", k)
	}
	p.i++
	p.skipBlank(false)
	v, err := p.value(0)
	return k, v, err
}

// maxTOMLDepth bounds nested arrays.
const maxTOMLDepth = 8

// value reads a string, number, boolean or array.
func (p *tomlParser) value(depth int) (tomlValue, error) {
	if p.eof() {
		return nil, fmt.Errorf("a value expected")
	}
	switch c := p.peek(); {
	case c == '"' || c == '\'':
		return p.str()
	case c == '[':
		if depth >= maxTOMLDepth {
			return nil, fmt.Errorf("arrays nested deeper than %d", maxTOMLDepth)
		}
		return p.array(depth + 1)
	case c == '{':
		return nil, fmt.Errorf("inline tables are not read")
	}
	start := p.i
	for !p.eof() && strings.IndexByte(" \t\r\n,]#", p.peek()) < 0 {
		p.i++
	}
	return scalar(p.s[start:p.i])
}

// scalar reads a bare value: true, false, an integer or a float.
func scalar(w string) (tomlValue, error) {
	switch w {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	clean := strings.ReplaceAll(w, "_", "")
	if n, err := strconv.ParseInt(clean, 0, 64); err == nil && !strings.HasPrefix(clean, "0") || clean == "0" {
		return n, nil
	}
	if f, err := strconv.ParseFloat(clean, 64); err == nil {
		return f, nil
	}
	return nil, fmt.Errorf("%q is not a string, number or boolean", clip(w))
}

// array reads [v, v, ...] over one or more lines.
func (p *tomlParser) array(depth int) ([]any, error) {
	p.i++
	var out []any
	for {
		p.skipBlank(true)
		if p.eof() {
			return nil, fmt.Errorf("an array without its closing ]")
		}
		if p.peek() == ']' {
			p.i++
			return out, nil
		}
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.skipBlank(true)
		if !p.eof() && p.peek() == ',' {
			p.i++
		} else if p.eof() || p.peek() != ']' {
			return nil, fmt.Errorf(", or ] expected in an array")
		}
	}
}

// str reads a basic ("...", with escapes) or literal ('...') string on
// one line.
func (p *tomlParser) str() (string, error) {
	q := p.peek()
	if strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3)) {
		return "", fmt.Errorf("multi-line strings are not read")
	}
	p.i++
	var b strings.Builder
	for !p.eof() {
		c := p.peek()
		p.i++
		switch {
		case c == '\n':
			return "", fmt.Errorf("a string without its closing quote")
		case c == q:
			return b.String(), nil
		case c == '\\' && q == '"':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("a string without its closing quote")
}

// escape reads one backslash escape of a basic string.
func (p *tomlParser) escape(b *strings.Builder) error {
	if p.eof() {
		return fmt.Errorf("a string ends in a backslash")
	}
	c := p.peek()
	p.i++
	simple := map[byte]byte{'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', '"': '"', '\\': '\\'}
	if r, ok := simple[c]; ok {
		b.WriteByte(r)
		return nil
	}
	n := map[byte]int{'u': 4, 'U': 8}[c]
	if n == 0 || p.i+n > len(p.s) {
		return fmt.Errorf("unknown escape \\%c", c)
	}
	r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
	if err != nil || r > 0x10FFFF {
		return fmt.Errorf("bad escape \\%c%s", c, p.s[p.i:p.i+n])
	}
	p.i += n
	b.WriteRune(rune(r))
	return nil
}
