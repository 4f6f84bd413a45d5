package htmlreport

import (
	"math"
	"testing"
)

func TestNiceMax(t *testing.T) {
	for _, tc := range []struct{ v, top, step float64 }{
		{25, 25, 5}, {100, 100, 20}, {62, 80, 20}, {0.3, 0.3, 0.1}, {7.2, 8, 2}, {1, 1, 0.2}, {101, 150, 50}, {0, 1, 0.2},
	} {
		top, step := niceMax(tc.v)
		if math.Abs(top-tc.top) > 1e-9 || math.Abs(step-tc.step) > 1e-9 {
			t.Errorf("niceMax(%v) = %v, %v; want %v, %v", tc.v, top, step, tc.top, tc.step)
		}
	}
}
