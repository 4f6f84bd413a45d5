package texttable

import (
	"strings"
	"unicode/utf8"

	"github.com/dbmem/dbmem/internal/inert"
)

// Table holds a header and rows of cells. Columns are as wide as their
// widest cell and two spaces apart; trailing spaces are trimmed.
type Table struct {
	header []string
	right  []bool
	rows   [][]string
}

// New starts a table with these column headers; a header starting with ">"
// (numbers) is right-aligned, without the ">".
func New(cols ...string) *Table {
	t := &Table{}
	for _, c := range cols {
		t.right = append(t.right, strings.HasPrefix(c, ">"))
		t.header = append(t.header, strings.TrimPrefix(c, ">"))
	}
	return t
}

// Add appends a row; missing cells are blank, extra cells are dropped.
// Cells are printed inert (inert.Text): a process name or a user name from
// another process cannot act on the terminal.
func (t *Table) Add(cells ...string) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = inert.Text(c)
	}
	t.rows = append(t.rows, row)
}

// Lines returns the header and the rows, each line indented.
func (t *Table) Lines(indent string) []string {
	all := append([][]string{t.header}, t.rows...)
	width := t.widths(all)
	out := make([]string, 0, len(all))
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

// Render returns Lines as text, each line ending in a newline.
func (t *Table) Render(indent string) string {
	return strings.Join(t.Lines(indent), "\n") + "\n"
}

// widths is each column's widest cell, in runes.
func (t *Table) widths(rows [][]string) []int {
	width := make([]int, len(t.header))
	for _, r := range rows {
		for i := range width {
			if i < len(r) {
				width[i] = max(width[i], utf8.RuneCountInString(r[i]))
			}
		}
	}
	return width
}
