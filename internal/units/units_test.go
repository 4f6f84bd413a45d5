package units

import "testing"

func TestBytes(t *testing.T) {
	for b, want := range map[uint64]string{0: "0 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.50 KiB",
		2 << 20: "2 MiB", 25232932864: "23.5 GiB", 150 << 20: "150 MiB", 1 << 62: "4 EiB"} {
		if got := Bytes(b); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", b, got, want)
		}
	}
	if Short(0) != "0" || Short(1536) != "1.50K" || Short(3<<30) != "3G" {
		t.Errorf("Short: %q %q %q", Short(0), Short(1536), Short(3<<30))
	}
}

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		part, whole uint64
		want        string
	}{{1, 0, "-"}, {0, 5, "0%"}, {1, 250, "0.4%"}, {1, 4, "25%"}, {1, 10, "10%"}, {3, 2, "150%"}} {
		if got := Percent(tc.part, tc.whole); got != tc.want {
			t.Errorf("Percent(%d, %d) = %q, want %q", tc.part, tc.whole, got, tc.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]uint64{"64GiB": 64 << 30, "64GB": 64 << 30, "64g": 64 << 30, "512MB": 512 << 20,
		"1.5TiB": 3 << 39, "262144kB": 256 << 20, "5016896KiB": 5016896 << 10, "4096": 4096, " 2 G ": 2 << 30} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "GB", "-1GB", "12 parsecs", "1e30TB", "1.2.3G"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	f.Add("64GiB")
	f.Fuzz(func(t *testing.T, s string) {
		if b, err := ParseSize(s); err == nil {
			Bytes(b)
		}
	})
}

func TestOptional(t *testing.T) {
	v, zero := uint64(1536), uint64(0)
	if OptBytes(nil) != "unknown" || OptBytes(&zero) != "0 B" || OptShort(nil) != "?" || OptShort(&v) != "1.50K" {
		t.Errorf("OptBytes/OptShort: %q %q %q %q", OptBytes(nil), OptBytes(&zero), OptShort(nil), OptShort(&v))
	}
	if OptPercent(&v, nil) != "?" || OptPercent(nil, &v) != "?" || OptPercent(&zero, &v) != "0%" {
		t.Errorf("OptPercent: %q %q %q", OptPercent(&v, nil), OptPercent(nil, &v), OptPercent(&zero, &v))
	}
}
