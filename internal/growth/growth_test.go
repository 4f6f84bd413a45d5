package growth

import (
	"math"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func line(n int, every time.Duration, start, perSec float64, noise func(i int) float64) []Point {
	var ps []Point
	for i := range n {
		at := t0.Add(time.Duration(i) * every)
		ps = append(ps, Point{at, start + perSec*at.Sub(t0).Seconds() + noise(i)})
	}
	return ps
}

func none(int) float64 { return 0 }

func TestFit(t *testing.T) {
	mib := float64(1 << 20)
	cases := []struct {
		name      string
		points    []Point
		sustained bool
		why       string
		rate      float64
	}{
		{"steady 1 MiB/min", line(31, time.Minute, 100*mib, mib/60, none), true, "", mib / 60},
		{"noisy 1 MiB/min", line(31, time.Minute, 100*mib, mib/60, func(i int) float64 { return float64(i%3-1) * mib }), true, "", mib / 60},
		{"flat", line(31, time.Minute, 100*mib, 0, func(i int) float64 { return float64(i%2) * 1024 }), false, "no growth", 0},
		{"too short", line(5, time.Minute, 100*mib, mib/60, none), false, "less than 10m0s", mib / 60},
		{"too few points", line(3, 10*time.Minute, 100*mib, mib/60, none), false, "fewer than 5", mib / 60},
		{"a step: one big query", line(31, time.Minute, 100*mib, 0, func(i int) float64 {
			if i > 25 {
				return 200 * mib
			}
			return 0
		}), false, "not steady", -1},
		{"a sawtooth", line(31, time.Minute, 100*mib, 0, func(i int) float64 { return float64(i%10) * 20 * mib }), false, "", -1},
	}
	for _, c := range cases {
		tr := Fit(c.points, Options{})
		if tr.Sustained != c.sustained || !strings.Contains(tr.Why, c.why) {
			t.Errorf("%s: sustained %v (%q), want %v (%q); rate %.0f R² %.2f", c.name, tr.Sustained, tr.Why, c.sustained, c.why, tr.Rate, tr.R2)
		}
		if c.rate >= 0 && math.Abs(tr.Rate-c.rate) > 0.02*c.rate+1 {
			t.Errorf("%s: rate %.1f, want %.1f", c.name, tr.Rate, c.rate)
		}
	}
	// Only the window counts: flat for two hours, then 30 minutes of growth.
	ps := append(line(120, time.Minute, 100*mib, 0, none), line(31, time.Minute, 100*mib, mib/60, none)...)
	for i := 120; i < len(ps); i++ {
		ps[i].At = ps[i].At.Add(120 * time.Minute)
	}
	if tr := Fit(ps, Options{Window: 30 * time.Minute}); !tr.Sustained || tr.Points != 31 {
		t.Errorf("window: %+v", tr)
	}
}

func TestForecast(t *testing.T) {
	mib := float64(1 << 20)
	f := ForecastAt(mib/60, t0, t0.Add(30*time.Minute), t0.Add(30*time.Minute), []Limit{
		{Name: "MemAvailable", HeadroomBytes: 600 * mib},
		{Name: "cgroup", HeadroomBytes: 60 * mib},
		{Name: "CommitLimit", HeadroomBytes: -5},
	})
	if len(f.Reaches) != 3 || f.Reaches[0].Limit.Name != "CommitLimit" || f.Reaches[0].In != 0 ||
		f.Reaches[1].In != time.Hour || f.Reaches[2].In != 10*time.Hour || f.Window != 30*time.Minute {
		t.Errorf("forecast %+v", f)
	}
	if r, ok := ForecastAt(0, t0, t0, t0, []Limit{{Name: "x", HeadroomBytes: 1}}).Soonest(); ok {
		t.Errorf("no growth reaches %+v", r)
	}
	if got := Rate(mib / 60); got != "+60.0 MiB/h" {
		t.Errorf("Rate = %q", got)
	}
	if got := Rate(2 * mib); got != "+120.0 MiB/min" {
		t.Errorf("Rate = %q", got)
	}
}

func FuzzFit(f *testing.F) {
	f.Add(int64(60), 1.5, 100.0, 3.0)
	f.Fuzz(func(t *testing.T, step int64, slope, start, noise float64) {
		var ps []Point
		for i := range 40 {
			ps = append(ps, Point{t0.Add(time.Duration(int64(i) * step * int64(time.Second))), start + slope*float64(i) + noise*float64(i%3)})
		}
		tr := Fit(ps, Options{})
		if tr.Sustained && (tr.Rate <= 0 || tr.R2 < 0.8 || math.IsNaN(tr.Rate)) {
			t.Fatalf("%+v", tr)
		}
	})
}
