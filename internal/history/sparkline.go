package history

import (
	"math"
	"strings"
	"time"
)

var ticks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws points in width characters: the time range is cut into
// width buckets and each bucket shows its mean, scaled between the series'
// minimum and maximum. Empty buckets are spaces.
func Sparkline(ps []TimePoint, width int) string {
	if len(ps) == 0 || width <= 0 {
		return ""
	}
	means := Buckets(ps, width)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range means {
		if !math.IsNaN(m) {
			lo, hi = math.Min(lo, m), math.Max(hi, m)
		}
	}
	var b strings.Builder
	for _, m := range means {
		switch {
		case math.IsNaN(m):
			b.WriteRune(' ')
		case hi == lo:
			b.WriteRune(ticks[0])
		default:
			i := int((m - lo) / (hi - lo) * float64(len(ticks)-1))
			b.WriteRune(ticks[max(0, min(i, len(ticks)-1))])
		}
	}
	return b.String()
}

// Buckets cuts the time range of ps into n equal spans and returns the mean
// of each (NaN for a span without points).
func Buckets(ps []TimePoint, n int) []float64 {
	sum, cnt := make([]float64, n), make([]int, n)
	t0, t1 := ps[0].At, ps[len(ps)-1].At
	span := t1.Sub(t0)
	for _, p := range ps {
		i := bucketOf(p.At.Sub(t0), span, n)
		sum[i] += p.Value
		cnt[i]++
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
		if cnt[i] > 0 {
			out[i] = sum[i] / float64(cnt[i])
		}
	}
	return out
}

func bucketOf(d, span time.Duration, n int) int {
	if span <= 0 {
		return n - 1
	}
	i := int(float64(d) / float64(span) * float64(n))
	return max(0, min(i, n-1))
}

// Stats are the minimum, mean, maximum and last value of a series.
type Stats struct {
	Min, Mean, Max, Last float64
}

// StatsOf computes Stats (zero for no points).
func StatsOf(ps []TimePoint) Stats {
	if len(ps) == 0 {
		return Stats{}
	}
	s := Stats{Min: math.Inf(1), Max: math.Inf(-1), Last: ps[len(ps)-1].Value}
	var sum float64
	for _, p := range ps {
		s.Min, s.Max = math.Min(s.Min, p.Value), math.Max(s.Max, p.Value)
		sum += p.Value
	}
	s.Mean = sum / float64(len(ps))
	return s
}
