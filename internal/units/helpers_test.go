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

func TestSubOptUnique(t *testing.T) {
	if Sub(3, 5) != 0 || Sub(5, 3) != 2 {
		t.Errorf("Sub: %d %d", Sub(3, 5), Sub(5, 3))
	}
	if p := Opt(uint64(7), true); p == nil || *p != 7 {
		t.Errorf("Opt(7, true) = %v", p)
	}
	if p := Opt(uint64(7), false); p != nil {
		t.Errorf("Opt(7, false) = %v, want nil (not read is not zero)", *p)
	}
	if got := Unique([]string{"b", "a", "b", "c", "a"}); len(got) != 3 || got[0] != "b" || got[1] != "a" || got[2] != "c" {
		t.Errorf("Unique = %v, want [b a c]", got)
	}
}
