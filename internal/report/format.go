package report

import (
	"strings"
	"unicode/utf8"
)

// table lays out rows in aligned columns; numeric columns align right.
type table struct {
	header []string
	right  []bool
	rows   [][]string
}

func newTable(cols ...string) *table {
	t := &table{}
	for _, c := range cols {
		right := strings.HasPrefix(c, ">")
		t.header = append(t.header, strings.TrimPrefix(c, ">"))
		t.right = append(t.right, right)
	}
	return t
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) render(indent string) string {
	width := make([]int, len(t.header))
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i := range width {
			if i < len(r) && utf8.RuneCountInString(r[i]) > width[i] {
				width[i] = utf8.RuneCountInString(r[i])
			}
		}
	}
	var b strings.Builder
	for _, r := range append([][]string{t.header}, t.rows...) {
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
			switch {
			case t.right[i]:
				b.WriteString(pad + cell)
			case i < len(width)-1:
				b.WriteString(cell + pad)
			default:
				b.WriteString(cell)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
