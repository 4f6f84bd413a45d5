package chart

import (
	"fmt"
	"math"
)

// NiceMax rounds v up to a round number (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8
// times a power of ten) and returns it with a tick step that divides it
// into 3 to 5 parts.
func NiceMax(v float64) (top, step float64) {
	if !(v > 0) || math.IsInf(v, 0) {
		return 1, 0.2
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, c := range []struct{ m, parts float64 }{{1, 5}, {1.5, 3}, {2, 4}, {2.5, 5}, {3, 3}, {4, 4}, {5, 5}, {6, 3}, {8, 4}, {10, 5}} {
		if c.m*p >= v*(1-1e-9) {
			return c.m * p, c.m * p / c.parts
		}
	}
	return 10 * p, 2 * p
}

// BinaryMax is NiceMax for bytes: steps are powers of two (8 GiB, 16 GiB,
// 24 GiB), at most four of them; 0 gives 1 MiB.
func BinaryMax(v float64) (top, step float64) {
	if !(v > 0) || math.IsInf(v, 0) {
		v = 1 << 20
	}
	step = math.Exp2(math.Ceil(math.Log2(v / 4)))
	return step * math.Ceil(v/step*(1-1e-12)), step
}

// scale is the top and the step of an axis for data up to peak.
func (a Axis) scale(peak float64) (top, step float64) {
	if a.Binary {
		return BinaryMax(peak)
	}
	top, step = NiceMax(peak)
	if a.Integer && step < 1 {
		step = 1 // no half connections
		top = math.Max(1, math.Ceil(top))
	}
	return top, step
}

// Num renders a tick label without needless decimals.
func Num(v float64) string {
	switch {
	case v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func (a Axis) label(v float64) string {
	if a.Format != nil {
		return a.Format(v)
	}
	return Num(v)
}
