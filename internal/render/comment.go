package render

import (
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
)

// commentWidth is where comment text is wrapped.
const commentWidth = 78

// text accumulates a file's lines with a comment marker ("#", "--").
type text struct {
	b   strings.Builder
	c   string
	pad string // before the marker (YAML comments at the value's indentation)
}

func newText(marker string) *text { return &text{c: marker} }

func (t *text) line(s string) { t.b.WriteString(s + "\n") }

func (t *text) blank() { t.b.WriteString("\n") }

// comment writes wrapped comment lines; indent goes after the marker on
// continuation lines.
func (t *text) comment(s, indent string) {
	for _, para := range strings.Split(s, "\n") {
		for i, l := range wrap(para, commentWidth-len(t.pad)-len(t.c)-1, len(indent)) {
			if i > 0 {
				l = indent + l
			}
			t.line(strings.TrimRight(t.pad+t.c+" "+l, " "))
		}
	}
}

func (t *text) String() string { return t.b.String() }

// header writes the lines every file starts with: what it is, who wrote it,
// and how it takes effect.
func (t *text) header(title, generated, then string) {
	t.comment(title, "")
	t.comment("Written by "+generated+". Each value says how it was computed and why.", "")
	if then != "" {
		t.comment("Takes effect: "+then, "  ")
	}
	t.blank()
}

// explain writes the comment block above one value.
func (t *text) explain(s finding.Setting, shown string) {
	head := shown
	if s.Current != "" && s.Current != s.Value {
		head += " (now " + s.Current + ")"
	}
	t.comment(head, "  ")
	if s.Formula != "" {
		t.comment("  formula: "+s.Formula, "           ")
	}
	if s.Why != "" {
		t.comment("  why: "+s.Why, "       ")
	}
	if s.Restart != "" {
		t.comment("  restart: "+s.Restart, "           ")
	}
}

// wrap splits s into lines of at most width bytes at spaces, the lines
// after the first indent bytes shorter (a longer word stays whole).
func wrap(s string, width, indent int) []string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return []string{""}
	}
	lead := s[:len(s)-len(strings.TrimLeft(s, " "))]
	var out []string
	cur := lead + words[0]
	for _, w := range words[1:] {
		if len(cur)+1+len(w) > width {
			out = append(out, cur)
			width = width - indent
			indent = 0
			cur = w
			continue
		}
		cur += " " + w
	}
	return append(out, cur)
}
