package texttable

import (
	"strings"
	"unicode/utf8"

	"github.com/dbmem/dbmem/internal/inert"
)

// Table holds a header and rows of cells. Columns are as wide as their
// widest cell and two spaces apart; trailing spaces are trimmed. With Fit,
// the table keeps within a width (see layout.go).
type Table struct {
	header []string
	right  []bool
	rows   [][]string
	width  int      // 0: no limit
	drop   []string // headers that may be left out, first first
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

// Fit keeps every line of the table within width columns, indent
// included (0: no limit). Long text cells are elided with "…" (paths keep
// their end), a text column that comes last wraps instead, and when the
// numbers alone do not fit, the columns named by Drop are left out, with a
// note saying which.
func (t *Table) Fit(width int) *Table {
	t.width = width
	return t
}

// Drop names the columns (by header) that Fit may leave out, the first to
// go first.
func (t *Table) Drop(headers ...string) *Table {
	t.drop = append(t.drop, headers...)
	return t
}

// Lines returns the header and the rows, each line indented.
func (t *Table) Lines(indent string) []string {
	l := t.layout(utf8.RuneCountInString(indent))
	out := make([]string, 0, len(t.rows)+2)
	out = append(out, t.line(indent, l, t.header)...)
	for _, r := range t.rows {
		out = append(out, t.line(indent, l, r)...)
	}
	if len(l.dropped) > 0 {
		out = append(out, strings.Split(Wrap(indent+l.note(t.width), t.width), "\n")...)
	}
	if t.width > 0 {
		for i, s := range out {
			out[i] = Cut(s, t.width)
		}
	}
	return out
}

// Render returns Lines as text, each line ending in a newline.
func (t *Table) Render(indent string) string {
	return strings.Join(t.Lines(indent), "\n") + "\n"
}

// line lays out one row as one line, or several where the wrapping
// column's cell is longer than its width.
func (t *Table) line(indent string, l layout, r []string) []string {
	out := t.inline(indent, l, r)
	if !l.below {
		return out
	}
	last := len(t.header) - 1
	if last >= len(r) || r[last] == "" {
		return out
	}
	pad := indent + strings.Repeat(" ", belowIndent)
	for _, s := range fold(r[last], t.width-len(pad), 0) {
		out = append(out, pad+s)
	}
	return out
}

// inline lays out the columns of l beside each other.
func (t *Table) inline(indent string, l layout, r []string) []string {
	cells := make([][]string, len(l.cols))
	n := 1
	for k, i := range l.cols {
		cell := ""
		if i < len(r) {
			cell = r[i]
		}
		cells[k] = t.fitCell(cell, l.widths[k], k == l.wrap)
		n = max(n, len(cells[k]))
	}
	out := make([]string, n)
	for j := range n {
		var b strings.Builder
		b.WriteString(indent)
		for k, i := range l.cols {
			cell := ""
			if j < len(cells[k]) {
				cell = cells[k][j]
			}
			pad := strings.Repeat(" ", max(0, l.widths[k]-utf8.RuneCountInString(cell)))
			if k > 0 {
				b.WriteString("  ")
			}
			if t.right[i] {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
		}
		out[j] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// fitCell returns a cell as the lines it takes in a column of width w.
func (t *Table) fitCell(cell string, w int, wrap bool) []string {
	if utf8.RuneCountInString(cell) <= w {
		return []string{cell}
	}
	if wrap {
		return fold(cell, w, 0)
	}
	return []string{Elide(cell, w)}
}

// widths is each column's widest cell, in runes.
func (t *Table) widths() []int {
	width := make([]int, len(t.header))
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i := range width {
			if i < len(r) {
				width[i] = max(width[i], utf8.RuneCountInString(r[i]))
			}
		}
	}
	return width
}
