package loglines

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

func collect(t *testing.T, text string, maxBytes int) ([]string, Stats) {
	t.Helper()
	var got []string
	st, err := Read(strings.NewReader(text), maxBytes, func(l string) { got = append(got, l) })
	if err != nil {
		t.Fatal(err)
	}
	return got, st
}

// A 2 MiB line before the lines that matter is skipped and counted; the
// lines after it are all read.
func TestLongLineIsSkippedAndCounted(t *testing.T) {
	long := strings.Repeat("x", 2<<20)
	got, st := collect(t, "first\r\n"+long+"\nafter 1\nafter 2", 0)
	if strings.Join(got, "|") != "first|after 1|after 2" {
		t.Errorf("lines = %q", got)
	}
	if st.Lines != 4 || st.LongLines != 1 || st.LongestBytes != 2<<20 {
		t.Errorf("stats = %+v", st)
	}
}

func TestLimitIsInclusive(t *testing.T) {
	got, st := collect(t, "12345\n123456\n\n", 5)
	if len(got) != 2 || got[0] != "12345" || got[1] != "" || st.LongLines != 1 || st.LongestBytes != 6 {
		t.Errorf("got %q, stats %+v", got, st)
	}
}

func TestReadErrorIsReturned(t *testing.T) {
	boom := errors.New("boom")
	var got []string
	st, err := Read(iotest.TimeoutReader(strings.NewReader("a\nb\n")), 0, func(l string) { got = append(got, l) })
	if err == nil || st.Lines == 0 {
		t.Errorf("err %v stats %+v lines %q", err, st, got)
	}
	_, err = Read(iotest.ErrReader(boom), 0, func(string) {})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}

func TestAdd(t *testing.T) {
	s := Stats{Lines: 2, LongLines: 1, LongestBytes: 10}.Add(Stats{Lines: 3, LongLines: 2, LongestBytes: 4})
	if s != (Stats{Lines: 5, LongLines: 3, LongestBytes: 10}) {
		t.Errorf("%+v", s)
	}
}
