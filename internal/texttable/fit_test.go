package texttable

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestFitElidesPathsAtTheStartAndTextInTheMiddle(t *testing.T) {
	tb := New(">PORT", "DATA DIR", "ROLE", ">PRIVATE").Fit(40)
	tb.Add("5432", "/var/lib/postgresql/15/main", "logical replication launcher", "1.02M")
	got := tb.Lines("")
	want := []string{
		"PORT  DATA DIR     ROLE          PRIVATE",
		"5432  …ql/15/main  logic…uncher    1.02M",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Lines =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestFitWrapsALastTextColumn(t *testing.T) {
	row := []string{"sysctl", "vm.nr_hugepages", "294", "72 needed (SHOW shared_memory_size_in_huge_pages) + 220 needed"}
	tb := New("TARGET", "NAME", ">VALUE", "FORMULA").Fit(66)
	tb.Add(row...)
	want := "" +
		"  TARGET  NAME             VALUE  FORMULA\n" +
		"  sysctl  vm.nr_hugepages    294  72 needed (SHOW\n" +
		"                                  shared_memory_size_in_huge_pages\n" +
		"                                  ) + 220 needed\n"
	if got := tb.Render("  "); got != want {
		t.Errorf("Render =\n%s\nwant\n%s", got, want)
	}
	// Too narrow to wrap beside the row: the column goes under it.
	tb = New("TARGET", "NAME", ">VALUE", "FORMULA").Fit(50)
	tb.Add(row...)
	want = "" +
		"  TARGET  NAME             VALUE\n" +
		"      FORMULA\n" +
		"  sysctl  vm.nr_hugepages    294\n" +
		"      72 needed (SHOW\n" +
		"      shared_memory_size_in_huge_pages) + 220\n" +
		"      needed\n"
	if got := tb.Render("  "); got != want {
		t.Errorf("Render at 50 =\n%s\nwant\n%s", got, want)
	}
}

func TestFitDropsNamedColumnsAndSaysSo(t *testing.T) {
	tb := New(">PID", "ROLE", ">RSS", ">HUGETLB", ">SWAP", ">PRIVATE").Drop("HUGETLB", "SWAP").Fit(36)
	tb.Add("2205", "postmaster", "29.8M", "0", "0", "756K")
	got := tb.Lines("  ")
	want := []string{
		"   PID  ROLE          RSS  PRIVATE",
		"  2205  postmaster  29.8M     756K",
		"  (not shown at 36 columns: HUGETLB,",
		"    SWAP; --wide shows every column)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Lines =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if wide := New(">PID", ">SWAP").Drop("SWAP").Fit(0); len(wide.Lines("")) != 1 || !strings.Contains(wide.Lines("")[0], "SWAP") {
		t.Errorf("no width dropped a column: %q", wide.Lines(""))
	}
}

// Whatever the cells, the width and the indent, no line is wider than asked.
func TestFitNeverExceedsTheWidth(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"postmaster", "/var/lib/postgresql/15/main", "1.02M", "µ", "checkpointer", "x", "", "a b c d e f g h", "logical replication launcher"}
	for n := range 500 {
		cols := 1 + r.IntN(8)
		var hdr []string
		for c := range cols {
			h := fmt.Sprintf("C%d", c)
			if r.IntN(2) == 0 {
				h = ">" + h
			}
			hdr = append(hdr, h)
		}
		width := 1 + r.IntN(120)
		tb := New(hdr...).Fit(width).Drop("C1", "C3")
		for range 1 + r.IntN(4) {
			var row []string
			for range cols {
				row = append(row, words[r.IntN(len(words))]+words[r.IntN(len(words))])
			}
			tb.Add(row...)
		}
		indent := strings.Repeat(" ", r.IntN(4))
		for _, l := range tb.Lines(indent) {
			if Visible(l) > width {
				t.Fatalf("case %d: width %d, line %q is %d wide", n, width, l, Visible(l))
			}
		}
	}
}

func TestWrapHangsUnderTheValue(t *testing.T) {
	in := "  Settings     shared_buffers=128MB max_connections=100 work_mem=4MB hash_mem_multiplier=2"
	got := Wrap(in, 50)
	want := "" +
		"  Settings     shared_buffers=128MB\n" +
		"               max_connections=100 work_mem=4MB\n" +
		"               hash_mem_multiplier=2"
	if got != want {
		t.Errorf("Wrap =\n%s\nwant\n%s", got, want)
	}
	if got := Wrap("short\n", 50); got != "short\n" {
		t.Errorf("a short text changed: %q", got)
	}
	long := "  Not seen     /a/very/long/path/without/any/space/at/all/in/it/anywhere"
	for _, l := range strings.Split(Wrap(long, 30), "\n") {
		if Visible(l) > 30 {
			t.Errorf("line %q is wider than 30", l)
		}
	}
}

func TestColoursTakeNoColumns(t *testing.T) {
	s := "\x1b[1mPOSTGRESQL\x1b[0m 15.20  /var/lib/postgresql/15/main  port 5432"
	if Visible(s) != len("POSTGRESQL 15.20  /var/lib/postgresql/15/main  port 5432") {
		t.Errorf("Visible = %d", Visible(s))
	}
	if got := Cut("\x1b[31mabcdef\x1b[0m", 4); got != "\x1b[31mabc…\x1b[0m" {
		t.Errorf("Cut = %q: the colour reset must survive", got)
	}
	for _, l := range strings.Split(Wrap(s, 30), "\n") {
		if Visible(l) > 30 {
			t.Errorf("line %q is wider than 30", l)
		}
	}
}

func FuzzWrap(f *testing.F) {
	f.Add("  Label     some text that goes on and on", 10)
	f.Add("\x1b[1mx\x1b[0m  y", 1)
	f.Fuzz(func(t *testing.T, s string, width int) {
		width = width%200 + 1
		if width < 1 {
			width = -width + 1
		}
		for _, l := range strings.Split(Wrap(s, width), "\n") {
			if Visible(l) > width {
				t.Fatalf("Wrap(%q, %d): line %q is %d wide", s, width, l, Visible(l))
			}
		}
	})
}
