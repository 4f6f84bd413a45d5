package texttable

import "strings"

// maxHang is how far in a label may end for its text to hang under it.
const maxHang = 24

// Wrap folds each line of text that is wider than width at spaces, the
// continuation lines indented to where the line's text starts: under the
// value of "  Label       value ...", else two columns in from the line's
// own indent. A word longer than a line is broken. 0 means no limit.
func Wrap(text string, width int) string {
	if width <= 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	var out []string
	for _, l := range lines {
		out = append(out, fold(l, width, hangAt(l, width))...)
	}
	return strings.Join(out, "\n")
}

// fold breaks one line, continuing at column hang.
func fold(line string, width, hang int) []string {
	width = max(width, 1)
	hang = min(hang, width-1)
	if Visible(line) <= width {
		return []string{line}
	}
	pad := strings.Repeat(" ", hang)
	head, rest := breakAt(line, width, byteAt(line, hang))
	out := []string{strings.TrimRight(head, " ")}
	for rest = strings.TrimLeft(rest, " "); rest != ""; rest = strings.TrimLeft(rest, " ") {
		if Visible(rest) <= width-hang {
			return append(out, pad+rest)
		}
		head, rest = breakAt(rest, width-hang, 0)
		out = append(out, pad+strings.TrimRight(head, " "))
	}
	return out
}

// breakAt splits s within avail visible columns: at the last space after
// byte from (a first line's label is not split), else inside a word too
// long for any line.
func breakAt(s string, avail, from int) (string, string) {
	cut := byteAt(s, avail)
	end := cut
	if end < len(s) {
		end++ // a space just past the limit is a break too
	}
	if i := strings.LastIndexByte(s[:end], ' '); i > from {
		return s[:i], s[i+1:]
	}
	return s[:cut], s[cut:]
}

// hangAt is the column continuation lines start at.
func hangAt(line string, width int) int {
	plain := line
	indent := len(plain) - len(strings.TrimLeft(plain, " "))
	limit := min(indent+maxHang, width/2)
	in := false
	for i := indent; i < len(plain) && i < limit; i++ {
		if strings.HasPrefix(plain[i:], "  ") && in {
			j := i
			for j < len(plain) && plain[j] == ' ' {
				j++
			}
			if Visible(plain[:j]) < width/2 {
				return Visible(plain[:j])
			}
			break
		}
		in = plain[i] != ' ' && plain[i] != 0x1b
	}
	return min(indent+2, width/2)
}
