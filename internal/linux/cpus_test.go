package linux

import "testing"

func TestParseCPUList(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{{"0-1\n", 2, true}, {"0", 1, true}, {"0-3,8,10-11", 7, true}, {"", 0, false}, {"3-1", 0, false}, {"a", 0, false}, {"0-99999999", 0, false}} {
		n, err := ParseCPUList(c.in)
		if (err == nil) != c.ok || n != c.want {
			t.Errorf("ParseCPUList(%q) = %d, %v; want %d ok=%v", c.in, n, err, c.want, c.ok)
		}
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-1", "0-3,8,10-11", "", "1-0", "65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := ParseCPUList(s); err == nil && (n < 1 || n > 1<<20*maxCPUs) {
			t.Fatalf("%q: %d CPUs", s, n)
		}
	})
}
