package budget

import (
	"fmt"
	"math"

	"github.com/dbmem/dbmem/internal/units"
)

// floorSetting rounds a size down as a person would write it: whole MiB
// from 2 MiB, whole 64 kB below; never under minimum.
func floorSetting(b, minimum uint64) uint64 {
	if b >= 2*units.MiB {
		b -= b % units.MiB
	} else {
		b -= b % (64 * units.KiB)
	}
	return max(b, minimum)
}

// ceilStep rounds b up to a multiple of step.
func ceilStep(b, step uint64) uint64 {
	if r := b % step; r != 0 {
		return b + step - r
	}
	return b
}

func clamp(v, lo, hi uint64) uint64 { return min(max(v, lo), hi) }

// mulBytes is n x b x f, rounded down.
func mulBytes(n int, b uint64, f float64) uint64 {
	if n <= 0 {
		return 0
	}
	return uint64(math.Floor(float64(n) * float64(b) * f))
}

// sumOf adds lines.
func sumOf(lines []Line) uint64 {
	var t uint64
	for _, l := range lines {
		t += l.Bytes
	}
	return t
}

// factorText: "(1 + 2 hash_mem_multiplier)" for two nodes.
func factorText(nodes int, hm float64) string {
	if nodes <= 1 {
		return fmt.Sprintf("%g hash_mem_multiplier", hm)
	}
	return fmt.Sprintf("(%d sort + %g hash_mem_multiplier)", nodes-1, hm)
}
