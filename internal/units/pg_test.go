package units

import "testing"

func TestParsePG(t *testing.T) {
	tests := []struct {
		value, unit string
		want        uint64
		err         bool
	}{
		{"128MB", "8kB", 128 << 20, false},
		{"16384", "8kB", 16384 * 8192, false},
		{"4096", "kB", 4 << 20, false},
		{"1.5GB", "kB", 3 << 29, false},
		{"64kB", "8kB", 64 << 10, false},
		{"1TB", "kB", 1 << 40, false},
		{"-1", "kB", 0, true},
		{"", "kB", 0, true},
		{"12XB", "kB", 0, true},
		{"1mb", "kB", 0, true}, // PostgreSQL units are case-sensitive
		{"99999999999999999999TB", "kB", 0, true},
	}
	for _, tc := range tests {
		got, err := ParsePG(tc.value, tc.unit)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParsePG(%q, %q) = %d, %v; want %d, err=%v", tc.value, tc.unit, got, err, tc.want, tc.err)
		}
	}
}

func TestPG(t *testing.T) {
	for b, want := range map[uint64]string{16 << 30: "16GB", 1536 << 20: "1536MB", 64 << 10: "64kB", 1000: "1kB", 3<<29 + 1: "1572865kB"} {
		if got := PG(b); got != want {
			t.Errorf("PG(%d) = %q, want %q", b, got, want)
		}
	}
}

func FuzzParsePG(f *testing.F) {
	f.Add("128MB")
	f.Add("1.5GB")
	f.Fuzz(func(t *testing.T, s string) {
		if b, err := ParsePG(s, "kB"); err == nil && b%1024 == 0 {
			if back, err := ParsePG(PG(b), "kB"); err != nil || back != b {
				t.Errorf("ParsePG(PG(%d)) = %d, %v", b, back, err)
			}
		}
	})
}
