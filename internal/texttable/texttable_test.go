package texttable

import "testing"

func TestRenderAlignsAndTrims(t *testing.T) {
	tb := New(">PID", "ROLE", ">RSS", "NOTE")
	tb.Add("7", "checkpointer", "1.5G", "")
	tb.Add("12345", "client µ", "12M", "idle")
	tb.Add("9", "short row")
	want := "" +
		"  PID  ROLE           RSS  NOTE\n" +
		"    7  checkpointer  1.5G\n" +
		"12345  client µ       12M  idle\n" +
		"    9  short row\n"
	if got := tb.Render(""); got != want {
		t.Errorf("Render:\n%s\nwant\n%s", got, want)
	}
	if got := tb.Lines("> ")[2]; got != "> 12345  client µ       12M  idle" {
		t.Errorf("indented line %q", got)
	}
}

func TestLinesOfAnEmptyTableIsTheHeader(t *testing.T) {
	got := New("A", ">B").Lines("")
	if len(got) != 1 || got[0] != "A  B" {
		t.Errorf("Lines = %q, want just the header", got)
	}
}

func TestCellsAreInert(t *testing.T) {
	tb := New(">PID", "COMM")
	tb.Add("42", "\x1b]0;PWN\a\x1b[2J")
	got := tb.Render("")
	if want := "PID  COMM\n 42  \\x1b]0;PWN\\x07\\x1b[2J\n"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
}
