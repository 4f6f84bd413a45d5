package history

import (
	"strings"
	"unicode/utf8"
)

// tbl aligns columns; the first row is the header and a header cell
// starting with ">" right-aligns its column.
type tbl struct{ rows [][]string }

func (t *tbl) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *tbl) String() string {
	if len(t.rows) == 0 {
		return ""
	}
	right := make([]bool, len(t.rows[0]))
	for i, c := range t.rows[0] {
		if strings.HasPrefix(c, ">") {
			right[i], t.rows[0][i] = true, c[1:]
		}
	}
	width := make([]int, len(right))
	for _, r := range t.rows {
		for i := 0; i < len(r) && i < len(width); i++ {
			width[i] = max(width[i], utf8.RuneCountInString(r[i]))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		var l strings.Builder
		for i := 0; i < len(r) && i < len(width); i++ {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(r[i]))
			if i > 0 {
				l.WriteString("  ")
			}
			if right[i] {
				l.WriteString(pad + r[i])
			} else {
				l.WriteString(r[i] + pad)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	return b.String()
}
