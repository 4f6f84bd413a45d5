package loglines

import (
	"strings"
	"testing"
	"testing/iotest"
)

// Read gives the lines strings.Split gives, in any chunking of its input,
// and counts exactly the lines over the limit.
func FuzzRead(f *testing.F) {
	f.Add("a\nb\r\n\nlong line here\nlast", uint8(4), false)
	f.Add(strings.Repeat("x", 70000)+"\ny", uint8(0), true)
	f.Fuzz(func(t *testing.T, text string, limit uint8, oneByte bool) {
		max := int(limit)
		if max == 0 {
			max = DefaultMax
		}
		var want []string
		wantLong, lines := 0, strings.Split(text, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		for _, l := range lines {
			if len(l) > max {
				wantLong++
				continue
			}
			want = append(want, strings.TrimSuffix(l, "\r"))
		}
		r := strings.NewReader(text)
		var got []string
		var err error
		var st Stats
		if oneByte {
			st, err = Read(iotest.OneByteReader(r), int(limit), func(l string) { got = append(got, l) })
		} else {
			st, err = Read(iotest.HalfReader(r), int(limit), func(l string) { got = append(got, l) })
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
			t.Fatalf("lines %q, want %q", got, want)
		}
		if st.Lines != len(lines) || st.LongLines != wantLong {
			t.Fatalf("stats %+v, want %d lines, %d long", st, len(lines), wantLong)
		}
	})
}
