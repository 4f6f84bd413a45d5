package inert

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"unicode/utf8"
)

// Writer is the last line of defence between dbmem's output and a
// terminal: whatever a caller forgot to pass through Text, no byte that a
// terminal acts on reaches it. Unlike Text it keeps line breaks, tabs and
// backslashes (the output is already formatted), so text that went through
// Text passes unchanged.
//
// In text mode a control character becomes \xNN and a dangerous non-ASCII
// character \uNNNN; with Colour, the SGR colour sequences dbmem itself
// writes (ESC [ 0/1/2/7/31/33/36 m) pass. In JSON mode (for encoding/json
// output, which already escapes C0 controls) C1 controls, DEL and the
// characters that reorder or hide text become \u escapes: the same string
// to a JSON reader, inert on a screen.
type Writer struct {
	w       io.Writer
	json    bool
	colour  bool
	pending []byte
}

// NewWriter returns a text-mode Writer on w.
func NewWriter(w io.Writer, colour bool) *Writer { return &Writer{w: w, colour: colour} }

// NewJSONWriter returns a JSON-mode Writer on w.
func NewJSONWriter(w io.Writer) *Writer { return &Writer{w: w, json: true} }

// sgr are the colour sequences dbmem writes (report's style, watch).
var sgr = regexp.MustCompile(`^\x1b\[(?:0|1|2|7|31|33|36|1;31|1;33)?m`)

// Write escapes p (and a character cut at the end of the previous Write)
// and writes it; it reports len(p) written on success.
func (x *Writer) Write(p []byte) (int, error) {
	buf := append(x.pending, p...)
	cut := x.completeUpTo(buf)
	out := x.escape(buf[:cut])
	x.pending = append([]byte(nil), buf[cut:]...)
	if _, err := x.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what a Write left pending (the start of a character cut
// short), escaped.
func (x *Writer) Flush() error {
	if len(x.pending) == 0 {
		return nil
	}
	out := x.escape(x.pending)
	x.pending = nil
	_, err := x.w.Write(out)
	return err
}

// completeUpTo is the length of b without a trailing incomplete UTF-8
// character or colour sequence.
func (x *Writer) completeUpTo(b []byte) int {
	for i := len(b) - 1; x.colour && i >= 0 && i >= len(b)-8; i-- {
		if b[i] == 0x1b {
			if !sgrIncomplete(b[i:]) {
				break
			}
			return i
		}
	}
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// sgrIncomplete reports whether b (from an ESC) could still become a
// colour sequence.
func sgrIncomplete(b []byte) bool {
	if len(b) == 1 {
		return true
	}
	if b[1] != '[' {
		return false
	}
	for _, c := range b[2:] {
		if c != ';' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func (x *Writer) escape(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		if x.colour && b[i] == 0x1b {
			if m := sgr.Find(b[i:]); m != nil {
				out, i = append(out, m...), i+len(m)
				continue
			}
		}
		r, n := utf8.DecodeRune(b[i:])
		out = x.appendRune(out, b[i:i+n], r)
		i += n
	}
	return out
}

func (x *Writer) appendRune(out, raw []byte, r rune) []byte {
	bad := r == utf8.RuneError && len(raw) <= 1
	switch {
	case x.json && (r == 0x7f || dangerous(r)):
		return fmt.Appendf(out, `\u%04x`, r)
	case x.json:
		return append(out, raw...) // encoding/json escaped C0; invalid bytes cannot come from it
	case r == '\n' || r == '\t':
		return append(out, raw...)
	case bad:
		return fmt.Appendf(out, `\x%02x`, raw[0])
	case r < 0x20 || r == 0x7f:
		return fmt.Appendf(out, `\x%02x`, r)
	case dangerous(r):
		return fmt.Appendf(out, `\u%04x`, r)
	}
	return append(out, raw...)
}

// Output is the Writer's text mode on a whole string (a frame drawn on a
// screen by a caller that adds its own cursor sequences afterwards).
func Output(s string, colour bool) string {
	var b bytes.Buffer
	w := NewWriter(&b, colour)
	w.Write([]byte(s))
	w.Flush()
	return b.String()
}
