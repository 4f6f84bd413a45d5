package texttable

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis marks text that was cut.
const Ellipsis = "…"

// Elide shortens s to w runes with an ellipsis: in the middle, keeping
// both ends ("postgresql@15-…OOMScoreAdjust"), or at the start for a path
// ("/var/lib/postgresql/15/main" keeps "…/15/main").
func Elide(s string, w int) string {
	r := []rune(s)
	if len(r) <= w {
		return s
	}
	if w <= 1 {
		return string(r[:max(w, 0)])
	}
	if strings.HasPrefix(s, "/") {
		return Ellipsis + string(r[len(r)-(w-1):])
	}
	head := (w - 1) / 2
	return string(r[:head]) + Ellipsis + string(r[len(r)-(w-1-head):])
}

// Cut shortens a line of at most width visible columns (ANSI SGR
// sequences take none) with an ellipsis at the end; 0 means no limit.
func Cut(s string, width int) string {
	if width <= 0 || Visible(s) <= width {
		return s
	}
	i := byteAt(s, width-1)
	return s[:i] + Ellipsis + sgrTail(s[i:])
}

// Visible is the number of columns s takes: runes, less escape sequences.
func Visible(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if e := escapeLen(s[i:]); e > 0 {
			i += e
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}

// byteAt is the byte offset where visible column col starts.
func byteAt(s string, col int) int {
	n := 0
	for i := 0; i < len(s); {
		if e := escapeLen(s[i:]); e > 0 {
			i += e
			continue
		}
		if n == col {
			return i
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return len(s)
}

// escapeLen is the length of the CSI sequence (ESC [ ... final byte) s
// starts with, or 0. Only dbmem's own colours can be there: text from
// other processes is made inert before it is laid out.
func escapeLen(s string) int {
	if len(s) < 2 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		if s[i] >= 0x40 && s[i] <= 0x7e {
			return i + 1
		}
	}
	return 0
}

// sgrTail keeps the escape sequences of a cut-off tail (a colour reset).
func sgrTail(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if e := escapeLen(s[i:]); e > 0 {
			b.WriteString(s[i : i+e])
			i += e
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return b.String()
}
