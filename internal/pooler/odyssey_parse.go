package pooler

import (
	"fmt"
	"strings"
)

// odNode is one statement of an Odyssey configuration: a keyword, its
// values, and the statements of its block when it has one
// (storage "name" { ... }, database default { user "u" { ... } }).
type odNode struct {
	Key      string
	Args     []string
	Children []odNode
	Block    bool
	File     string
	Line     int
}

// odToken is one token of Odyssey's scanner (sources/cfg/scan.l).
type odToken struct {
	kind byte // 'i' identifier, 's' string, 'n' number, '{', '}'
	text string
	line int
}

// odValueWords are identifiers that are values, not keywords.
var odValueWords = map[string]bool{"yes": true, "no": true, "on": true, "off": true, "true": true, "false": true, "default": true}

// maxODDepth bounds nested blocks (Odyssey's deepest is three: storage,
// watchdog; database, user, and a rule inside).
const maxODDepth = 16

// lexOdyssey splits a file into tokens: blanks and # comments skipped,
// "strings" with \" escapes, numbers (with a size suffix), identifiers,
// and braces. Anything else is an error naming its line.
func lexOdyssey(text string) ([]odToken, error) {
	var out []odToken
	line := 1
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '{' || c == '}':
			out = append(out, odToken{kind: c, line: line})
			i++
		case c == '"':
			s, n, err := odString(text[i:])
			if err != nil {
				return out, fmt.Errorf("line %d: %w", line, err)
			}
			out = append(out, odToken{kind: 's', text: s, line: line})
			line += strings.Count(text[i:i+n], "\n")
			i += n
		case c == '-' || c >= '0' && c <= '9' || c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
			j := i + 1
			for j < len(text) && (text[j] >= '0' && text[j] <= '9' || text[j] == '_' || text[j] >= 'A' && text[j] <= 'Z' || text[j] >= 'a' && text[j] <= 'z') {
				j++
			}
			kind := byte('i')
			if c == '-' || c >= '0' && c <= '9' {
				kind = 'n'
			}
			out = append(out, odToken{kind: kind, text: text[i:j], line: line})
			i = j
		default:
			return out, fmt.Errorf("line %d: unexpected %q", line, string(c))
		}
	}
	return out, nil
}

// odString reads "..." (\" stands for "); n is the bytes consumed.
func odString(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '"':
			b.WriteByte('"')
			i++
		case s[i] == '"':
			return b.String(), i + 1, nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, fmt.Errorf("a string without its closing quote")
}

// parseOdyssey builds the statement tree of one file.
func parseOdyssey(file, text string) ([]odNode, error) {
	toks, err := lexOdyssey(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	p := &odParser{toks: toks, file: file}
	nodes, err := p.block(0)
	if err == nil && p.i < len(p.toks) {
		err = fmt.Errorf("line %d: a } without its {", p.toks[p.i].line)
	}
	if err != nil {
		return nodes, fmt.Errorf("%s: %w", file, err)
	}
	return nodes, nil
}

type odParser struct {
	toks []odToken
	i    int
	file string
}

// block reads statements until a } (left for the caller) or the end.
func (p *odParser) block(depth int) ([]odNode, error) {
	if depth > maxODDepth {
		return nil, fmt.Errorf("blocks nested deeper than %d", maxODDepth)
	}
	var out []odNode
	for p.i < len(p.toks) && p.toks[p.i].kind != '}' {
		t := p.toks[p.i]
		if t.kind != 'i' || odValueWords[t.text] {
			return out, fmt.Errorf("line %d: a keyword expected, not %q", t.line, clip(t.text))
		}
		p.i++
		n := odNode{Key: t.text, File: p.file, Line: t.line}
		for p.i < len(p.toks) && p.isValue(p.toks[p.i]) {
			n.Args = append(n.Args, p.toks[p.i].text)
			p.i++
		}
		if p.i < len(p.toks) && p.toks[p.i].kind == '{' {
			p.i++
			kids, err := p.block(depth + 1)
			if err != nil {
				return out, err
			}
			if p.i >= len(p.toks) {
				return out, fmt.Errorf("line %d: a { without its }", t.line)
			}
			p.i++
			n.Children, n.Block = kids, true
		}
		out = append(out, n)
	}
	return out, nil
}

func (p *odParser) isValue(t odToken) bool {
	return t.kind == 's' || t.kind == 'n' || t.kind == 'i' && odValueWords[t.text]
}
