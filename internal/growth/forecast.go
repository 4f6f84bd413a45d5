package growth

import (
	"fmt"
	"sort"
	"time"
)

// Limit is what growth would run into, with the room left now.
type Limit struct {
	// Name says which: "MemAvailable", "cgroup memory.max of ...",
	// "CommitLimit".
	Name          string  `json:"name"`
	HeadroomBytes float64 `json:"headroom_bytes"`
	// Note qualifies it ("not enforced: vm.overcommit_memory=0").
	Note string `json:"note,omitempty"`
}

// Reach is when one limit would be reached at a rate.
type Reach struct {
	Limit Limit `json:"limit"`
	// In is from the last point; At the time.
	In time.Duration `json:"in_ns"`
	At time.Time     `json:"at"`
}

// Forecast is when each limit would be reached at a trend's rate, soonest
// first, and the window the rate was measured over.
type Forecast struct {
	RateBytesPerSecond float64       `json:"rate_bytes_per_second"`
	Window             time.Duration `json:"window_ns"`
	From               time.Time     `json:"from"`
	To                 time.Time     `json:"to"`
	Reaches            []Reach       `json:"reaches"`
}

// ForecastAt says when each limit would be reached growing at rate bytes
// per second from now, the rate having been measured from from to to. A
// limit without headroom is reached now; a rate that is not positive
// reaches none.
func ForecastAt(rate float64, from, to, now time.Time, limits []Limit) Forecast {
	f := Forecast{RateBytesPerSecond: rate, Window: to.Sub(from), From: from, To: to}
	if rate <= 0 {
		return f
	}
	for _, l := range limits {
		secs := max(l.HeadroomBytes, 0) / rate
		if secs > float64(100*365*24*3600) {
			continue // a century: not a forecast
		}
		in := time.Duration(secs * float64(time.Second))
		f.Reaches = append(f.Reaches, Reach{Limit: l, In: in, At: now.Add(in)})
	}
	sort.SliceStable(f.Reaches, func(i, j int) bool { return f.Reaches[i].In < f.Reaches[j].In })
	return f
}

// Soonest is the first limit reached (ok false when none is).
func (f Forecast) Soonest() (Reach, bool) {
	if len(f.Reaches) == 0 {
		return Reach{}, false
	}
	return f.Reaches[0], true
}

// Rate says a rate for people: "+12.0 MiB/min", "+300 KiB/h".
func Rate(bytesPerSecond float64) string {
	perHour := bytesPerSecond * 3600
	if perHour < float64(64<<20) {
		return "+" + bytesText(perHour) + "/h"
	}
	return "+" + bytesText(bytesPerSecond*60) + "/min"
}

func bytesText(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f %s", b, units[i])
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

// In says a duration for people: "42m", "3h05m", "2d04h".
func In(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}
