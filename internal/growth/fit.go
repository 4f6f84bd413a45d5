package growth

import (
	"fmt"
	"math"
	"time"
)

// Point is a value in bytes at a time.
type Point struct {
	At    time.Time
	Bytes float64
}

// Options say what counts as sustained growth.
type Options struct {
	// Window is how far back from the last point the fit looks (default
	// 30 min).
	Window time.Duration
	// MinSpan is the least time the points must cover (default 10 min);
	// MinPoints the least number of points (default 5).
	MinSpan   time.Duration
	MinPoints int
	// MinRate is the least slope, in bytes per second, called growth
	// (default 1 MiB per hour).
	MinRate float64
	// MinR2 is the least share of the variance the line must explain
	// (default 0.8).
	MinR2 float64
}

// Defaults fills what o leaves zero.
func (o Options) Defaults() Options {
	if o.Window <= 0 {
		o.Window = 30 * time.Minute
	}
	if o.MinSpan <= 0 {
		o.MinSpan = 10 * time.Minute
	}
	if o.MinPoints <= 0 {
		o.MinPoints = 5
	}
	if o.MinRate <= 0 {
		o.MinRate = float64(1<<20) / 3600
	}
	if o.MinR2 <= 0 {
		o.MinR2 = 0.8
	}
	return o
}

// Trend is the line through a window of points.
type Trend struct {
	// Rate is the slope in bytes per second.
	Rate float64 `json:"rate_bytes_per_second"`
	// From and To bound the points used; Points counts them.
	From   time.Time `json:"from"`
	To     time.Time `json:"to"`
	Points int       `json:"points"`
	// R2 is the coefficient of determination of the line.
	R2 float64 `json:"r2"`
	// Last is the last point's value.
	Last float64 `json:"last_bytes"`
	// Sustained is true when the growth meets Options; Why says why not.
	Sustained bool   `json:"sustained"`
	Why       string `json:"why,omitempty"`
}

// Span is the time the points cover.
func (t Trend) Span() time.Duration { return t.To.Sub(t.From) }

// Fit fits a line to the points of the window that ends at the last
// point. Points need not be sorted; NaN and infinite values are dropped.
func Fit(points []Point, o Options) Trend {
	o = o.Defaults()
	ps := window(points, o.Window)
	t := Trend{Points: len(ps)}
	if len(ps) == 0 {
		t.Why = "no points"
		return t
	}
	t.From, t.To, t.Last = ps[0].At, ps[len(ps)-1].At, ps[len(ps)-1].Bytes
	t.Rate, t.R2 = leastSquares(ps)
	switch {
	case len(ps) < o.MinPoints:
		t.Why = fmt.Sprintf("%d points, fewer than %d", len(ps), o.MinPoints)
	case t.Span() < o.MinSpan:
		t.Why = fmt.Sprintf("%s of points, less than %s", t.Span().Round(time.Second), o.MinSpan)
	case t.Rate < o.MinRate:
		t.Why = "no growth"
	case t.R2 < o.MinR2:
		t.Why = fmt.Sprintf("not steady (R² %.2f < %.2f): steps or a sawtooth, not a trend", t.R2, o.MinR2)
	default:
		t.Sustained = true
	}
	return t
}

// window keeps the valid points within w of the latest, sorted by time.
func window(points []Point, w time.Duration) []Point {
	var last time.Time
	for _, p := range points {
		if valid(p) && p.At.After(last) {
			last = p.At
		}
	}
	var out []Point
	for _, p := range points {
		if valid(p) && !p.At.Before(last.Add(-w)) {
			out = append(out, p)
		}
	}
	sortPoints(out)
	return out
}

func valid(p Point) bool { return !math.IsNaN(p.Bytes) && !math.IsInf(p.Bytes, 0) && !p.At.IsZero() }

func sortPoints(ps []Point) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].At.Before(ps[j-1].At); j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// leastSquares returns the slope (per second) and R² of the points, with
// times relative to the first to keep the sums small.
func leastSquares(ps []Point) (slope, r2 float64) {
	n := float64(len(ps))
	if len(ps) < 2 {
		return 0, 0
	}
	var sx, sy, sxx, sxy, syy float64
	t0 := ps[0].At
	for _, p := range ps {
		x, y := p.At.Sub(t0).Seconds(), p.Bytes
		sx, sy, sxx, sxy, syy = sx+x, sy+y, sxx+x*x, sxy+x*y, syy+y*y
	}
	vx, vy, cov := sxx-sx*sx/n, syy-sy*sy/n, sxy-sx*sy/n
	if vx <= 0 {
		return 0, 0
	}
	slope = cov / vx
	if vy <= 0 {
		return slope, 0
	}
	return slope, cov * cov / (vx * vy)
}
