package units

import "testing"

func TestHelpers(t *testing.T) {
	for _, c := range []struct{ n, d, want uint64 }{{0, 4, 0}, {1, 4, 1}, {4, 4, 1}, {5, 4, 2}, {1<<64 - 1, 2, 1 << 63}, {7, 0, 0}} {
		if got := CeilDiv(c.n, c.d); got != c.want {
			t.Errorf("CeilDiv(%d, %d) = %d, want %d", c.n, c.d, got, c.want)
		}
	}
	if Trunc("abcdef", 3) != "abc..." || Trunc("abc", 3) != "abc" {
		t.Error("Trunc")
	}
	n := 42
	if OptInt(&n, UnknownCell) != "42" || OptInt(nil, UnknownCell) != "?" || OptInt(nil, "-") != "-" {
		t.Error("OptInt")
	}
	if Or("x", Unknown) != "x" || Or("", Unknown) != "unknown" {
		t.Error("Or")
	}
}
