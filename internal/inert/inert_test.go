package inert

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres: checkpointer", "postgres: checkpointer"},
		{"\x1b]0;PWN\a\x1b[2J", `\x1b]0;PWN\x07\x1b[2J`},
		{"a\nb\tc\rd", `a\nb\tc\rd`},
		{`C:\path`, `C:\\path`},
		{"caf\u00e9 \u65e5\u672c", "caf\u00e9 \u65e5\u672c"},
		{"x\u202ey", `x\u202ey`},
		{"\xff\xfe", `\xff\xfe`},
		{"csi\u009b31m", `csi\u009b31m`},
		{"del\x7f", `del\x7f`},
		{"", ""},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLinesKeepsBreaks(t *testing.T) {
	got := Lines("SELECT 1\n\x1b[2J-- x")
	if got != "SELECT 1\n\\x1b[2J-- x" {
		t.Errorf("Lines = %q", got)
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"", "abc", "\x1b[31m", "\xff", "\u202e", `\x1b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Text(%q) is not UTF-8: %q", s, out)
		}
		for _, r := range out {
			if r < 0x20 || r == 0x7f || dangerous(r) {
				t.Fatalf("Text(%q) keeps %U: %q", s, r, out)
			}
		}
		if Safe(s) != (out == s) {
			t.Fatalf("Safe(%q)=%v but Text changed it to %q", s, Safe(s), out)
		}
		if !Safe(s) && !strings.Contains(out, `\`) {
			t.Fatalf("Text(%q) = %q escapes nothing", s, out)
		}
	})
}
