package plan

import (
	"testing"

	"github.com/dbmem/dbmem/internal/units"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"64GiB", 64 << 30, true}, {"64GB", 64 << 30, true}, {"64G", 64 << 30, true}, {"64g", 64 << 30, true},
		{"512MiB", 512 << 20, true}, {"1.5T", 3 << 39, true}, {"4096", 4096, true}, {" 2 GiB ", 2 << 30, true},
		{"5016896KiB", 5016896 << 10, true}, {"0", 0, true},
		{"", 0, false}, {"GiB", 0, false}, {"-1G", 0, false}, {"12PB", 0, false}, {"1.2.3G", 0, false}, {"99999999999T", 0, false},
	} {
		got, err := units.ParseSize(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("units.ParseSize(%q) = %d, %v; want %d ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"64GiB", "1.5T", "", "-1", "9999999999999999999999T", "1e308G"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b, err := units.ParseSize(s); err == nil && b >= 1<<63 {
			t.Errorf("units.ParseSize(%q) = %d: beyond the range it promises", s, b)
		}
	})
}

func TestPGValue(t *testing.T) {
	for b, want := range map[uint64]string{16 << 30: "16GB", 1536 << 20: "1536MB", 64 << 10: "64kB", 1000: "1kB", 2<<20 + 1: "2049kB"} {
		if got := units.PG(b); got != want {
			t.Errorf("units.PG(%d) = %q, want %q", b, got, want)
		}
	}
}
