package inert

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestWriter(t *testing.T) {
	hostile := "\x1b]0;PWN\a\x1b[2J"
	cases := []struct {
		name   string
		colour bool
		in     []string // one Write each
		want   string
	}{
		{"title and clear", false, []string{"name " + hostile + "\n"}, `name \x1b]0;PWN\x07\x1b[2J` + "\n"},
		{"kept", false, []string{"a\tb\\c é 漢字\n"}, "a\tb\\c é 漢字\n"},
		{"already inert", false, []string{Text(hostile)}, Text(hostile)},
		{"C1, bidi, CR, DEL, bad byte", false, []string{"\u009b2J \u202eevil \r\x7f\xff"}, `\u009b2J \u202eevil \x0d\x7f\xff`},
		{"rune split over writes", false, []string{"caf\xc3", "\xa9 \xe6\xbc", "\xa2"}, "café 漢"},
		{"cut at the end", false, []string{"x\xe6\xbc"}, `x\xe6\xbc`},
		{"our colours pass", true, []string{"\x1b[1mdbmem\x1b[0m \x1b[33mwarn\x1b[0m"}, "\x1b[1mdbmem\x1b[0m \x1b[33mwarn\x1b[0m"},
		{"colour split over writes", true, []string{"\x1b[3", "1mred\x1b[0m"}, "\x1b[31mred\x1b[0m"},
		{"other sequences with colour on", true, []string{"\x1b[8mhidden\x1b[2J\x1b]0;t\a"}, `\x1b[8mhidden\x1b[2J\x1b]0;t\x07`},
	}
	for _, c := range cases {
		var b bytes.Buffer
		w := NewWriter(&b, c.colour)
		for _, s := range c.in {
			if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
				t.Errorf("%s: Write = %d, %v", c.name, n, err)
			}
		}
		w.Flush()
		if b.String() != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, b.String(), c.want)
		}
	}
}

// In JSON mode the output is the same JSON to a reader, inert on a screen.
func TestJSONWriter(t *testing.T) {
	v := map[string]string{"comm": "\u009b2J\u202e\x7f\x1b]0;x\a", "ok": "é \\ \"q\""}
	var raw, safe bytes.Buffer
	json.NewEncoder(&raw).Encode(v)
	w := NewJSONWriter(&safe)
	json.NewEncoder(w).Encode(v)
	w.Flush()
	for _, c := range []string{"\x1b", "\a", "\x7f", "\u009b", "\u202e"} {
		if bytes.Contains(safe.Bytes(), []byte(c)) {
			t.Errorf("JSON output holds %q: %s", c, safe.Bytes())
		}
	}
	var back map[string]string
	if err := json.Unmarshal(safe.Bytes(), &back); err != nil || back["comm"] != v["comm"] || back["ok"] != v["ok"] {
		t.Errorf("the JSON reads back as %q (%v), want %q; raw %s", back, err, v, raw.Bytes())
	}
}
