package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bytes renders a size in IEC units with three significant digits:
// "0 B", "512 B", "1.5 KiB", "23.5 GiB".
func Bytes(b uint64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	v, exp := float64(b), 0
	for v >= unit && exp < 5 {
		v /= unit
		exp++
	}
	return trimNum(v) + " " + string("KMGTPE"[exp-1]) + "iB"
}

// Short renders a size for table cells: "0", "512B", "1.5K", "23.5G".
func Short(b uint64) string {
	if b == 0 {
		return "0"
	}
	s := Bytes(b)
	s = strings.TrimSuffix(strings.Replace(s, " ", "", 1), "iB")
	return s
}

func trimNum(v float64) string {
	switch {
	case v == float64(int64(v)):
		return fmt.Sprintf("%.0f", v)
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// Percent renders part/whole as "12%" ("-" when whole is 0).
func Percent(part, whole uint64) string {
	if whole == 0 {
		return "-"
	}
	p := float64(part) * 100 / float64(whole)
	if p > 0 && p < 1 {
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", p)
}

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
