package inert

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Text returns s with every character that a terminal would act on shown as
// an escape: C0 and C1 controls (ESC, BEL, CR, LF, TAB...), DEL, the Unicode
// bidirectional overrides and isolates (which reorder what follows them),
// and bytes that are not UTF-8. A backslash is doubled, so an escape that was
// already in s cannot pass for one this function wrote. Printable text,
// including non-ASCII letters, is kept as it is.
func Text(s string) string {
	if Safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case dangerous(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Lines is Text for multi-line text (a log excerpt, a query): line breaks
// stay line breaks, everything else a terminal would act on is escaped.
func Lines(s string) string {
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = Text(p)
	}
	return strings.Join(parts, "\n")
}

// Safe reports whether s prints as itself: valid UTF-8 with no character
// that Text would escape.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || c == '\\' {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n <= 1) || dangerous(r) {
			return false
		}
		i += n
	}
	return true
}

// dangerous are the non-ASCII characters a terminal or a text layout acts
// on: C1 controls (0x9b is a one-byte CSI on some terminals), the
// bidirectional embeddings, overrides and isolates, the line and paragraph
// separators, and the byte-order mark and zero-width characters that hide
// text.
func dangerous(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028 || r == 0x2029 || r == 0xfeff:
		return true
	case r >= 0x200b && r <= 0x200f:
		return true
	}
	return false
}
