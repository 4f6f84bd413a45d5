package texttable

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Text columns are elided no narrower than their header or minText (and
// no narrower than softText while a column can still be dropped); a last
// text column wraps no narrower than minWrap.
const (
	minText  = 6
	softText = 16
	minWrap  = 16
	// A last column that would wrap narrower than minBeside goes below
	// its row instead, indented by belowIndent.
	minBeside   = 30
	belowIndent = 4
)

// layout is which columns a table shows and how wide each is.
type layout struct {
	cols    []int // indexes into the header, in order
	widths  []int // one per shown column
	wrap    int   // index into cols of the wrapping column, or -1
	below   bool  // the last column is written under its row
	dropped []string
}

// layout fits the table into t.width with indent columns taken: text
// columns shrink, widest first, down to their minimum; then Drop's columns
// go, one at a time, until the rest fits or none is left to drop.
func (t *Table) layout(indent int) layout {
	natural := t.widths()
	l := layout{wrap: -1}
	for i := range t.header {
		l.cols = append(l.cols, i)
	}
	if l.below = t.goesBelow(natural, indent); l.below {
		l.cols = l.cols[:len(l.cols)-1]
	}
	for {
		l.widths, l.wrap = t.shrink(l.cols, natural, indent, softText)
		if l.below {
			l.wrap = -1
		}
		if t.width <= 0 || total(l.widths, indent) <= t.width {
			return l
		}
		next := t.nextDrop(l.cols)
		if next < 0 {
			l.widths, l.wrap = t.shrink(l.cols, natural, indent, minText)
			return l
		}
		l.cols = slices.DeleteFunc(l.cols, func(i int) bool { return i == next })
		l.dropped = append(l.dropped, t.header[next])
	}
}

// goesBelow reports whether the last column is long text that, beside
// the others narrowed to their soft minimum, would have fewer than
// minBeside columns.
func (t *Table) goesBelow(natural []int, indent int) bool {
	last := len(t.header) - 1
	if t.width <= 0 || last < 1 || t.right[last] || natural[last] <= minBeside ||
		total(natural, indent) <= t.width || t.width-indent-belowIndent < minBeside {
		return false
	}
	others := make([]int, last)
	for i := range others {
		others[i] = natural[i]
		if !t.right[i] {
			others[i] = min(natural[i], max(utf8.RuneCountInString(t.header[i]), softText))
		}
	}
	return t.width-total(others, indent)-2 < minBeside
}

// shrink narrows the text columns among cols, widest first, one rune at a
// time, until the line fits or each is at its minimum (floor, or its header).
func (t *Table) shrink(cols, natural []int, indent, floor int) ([]int, int) {
	w := make([]int, len(cols))
	low := make([]int, len(cols))
	wrap := -1
	for k, i := range cols {
		w[k], low[k] = natural[i], natural[i]
		if t.right[i] {
			continue
		}
		low[k] = min(natural[i], max(utf8.RuneCountInString(t.header[i]), floor))
		if k == len(cols)-1 {
			wrap = k
			low[k] = min(natural[i], max(utf8.RuneCountInString(t.header[i]), minWrap))
		}
	}
	if t.width <= 0 {
		return w, wrap
	}
	for total(w, indent) > t.width {
		k := widestAboveLow(w, low)
		if k < 0 {
			break
		}
		w[k]--
	}
	return w, wrap
}

func widestAboveLow(w, low []int) int {
	best := -1
	for k := range w {
		if w[k] > low[k] && (best < 0 || w[k] > w[best]) {
			best = k
		}
	}
	return best
}

// total is a line's width: indent, columns and two spaces between them.
func total(w []int, indent int) int {
	n := indent + 2*max(0, len(w)-1)
	for _, x := range w {
		n += x
	}
	return n
}

// nextDrop is the first column of Drop still shown, or -1.
func (t *Table) nextDrop(cols []int) int {
	for _, h := range t.drop {
		for _, i := range cols {
			if t.header[i] == h {
				return i
			}
		}
	}
	return -1
}

func (l layout) note(width int) string {
	return fmt.Sprintf("(not shown at %d columns: %s; --wide shows every column)", width, strings.Join(l.dropped, ", "))
}
