package measure

import "testing"

func TestParse(t *testing.T) {
	for _, m := range Methods {
		if got, err := Parse(string(m)); err != nil || got != m {
			t.Errorf("Parse(%q) = %q, %v", m, got, err)
		}
	}
	if _, err := Parse("pss"); err == nil {
		t.Error(`Parse("pss"): no error`)
	}
}

func TestRollupFastPath(t *testing.T) {
	for _, c := range []struct {
		m            Method
		rollup, fast bool
	}{{Auto, false, true}, {Fast, false, true}, {Smaps, true, false}, {Status, false, false}, {"", false, false}} {
		if c.m.Rollup() != c.rollup || c.m.FastPath() != c.fast {
			t.Errorf("%q: Rollup %v FastPath %v", c.m, c.m.Rollup(), c.m.FastPath())
		}
	}
}
