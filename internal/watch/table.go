package watch

import (
	"strings"
	"unicode/utf8"
)

// table lays out rows in aligned columns; a header starting with ">" is
// right-aligned.
type table struct {
	header []string
	right  []bool
	rows   [][]string
}

func newTable(cols ...string) *table {
	t := &table{}
	for _, c := range cols {
		t.right = append(t.right, strings.HasPrefix(c, ">"))
		t.header = append(t.header, strings.TrimPrefix(c, ">"))
	}
	return t
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// lines returns the header and rows, each indented.
func (t *table) lines(indent string) []string {
	all := append([][]string{t.header}, t.rows...)
	width := make([]int, len(t.header))
	for _, r := range all {
		for i := range width {
			if i < len(r) {
				width[i] = max(width[i], utf8.RuneCountInString(r[i]))
			}
		}
	}
	var out []string
	for _, r := range all {
		var b strings.Builder
		b.WriteString(indent)
		for i := range width {
			cell := ""
			if i < len(r) {
				cell = r[i]
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(cell))
			if i > 0 {
				b.WriteString("  ")
			}
			if t.right[i] {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}
