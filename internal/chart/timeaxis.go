package chart

import (
	"math"
	"time"
)

// timeSteps are the tick steps of a time axis, shortest first.
var timeSteps = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second,
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
	2 * 24 * time.Hour, 7 * 24 * time.Hour, 14 * 24 * time.Hour, 28 * 24 * time.Hour}

// tick is one labelled position on an axis.
type tick struct {
	at    float64
	label string
}

// timeTicks puts at most maxTicks ticks on round times (whole minutes,
// hours, ...) between from and to (Unix seconds, UTC), each label as
// precise as the step, so that no two read the same.
func timeTicks(from, to float64, maxTicks int) []tick {
	span := time.Duration((to - from) * float64(time.Second))
	if span <= 0 {
		return []tick{{from, unix(from).Format("15:04:05")}}
	}
	step := timeSteps[len(timeSteps)-1]
	for _, s := range timeSteps {
		if span/s <= time.Duration(maxTicks) {
			step = s
			break
		}
	}
	layout := timeLayout(step, unix(from), unix(to))
	var out []tick
	secs := step.Seconds()
	for t := math.Ceil(from/secs) * secs; t <= to+1e-9; t += secs {
		out = append(out, tick{t, unix(t).Format(layout)})
	}
	return out
}

// timeLayout shows seconds only for steps under a minute, the date when
// the range crosses midnight, and the date alone for steps of days.
func timeLayout(step time.Duration, from, to time.Time) string {
	sameDay := from.YearDay() == to.YearDay() && from.Year() == to.Year()
	switch {
	case step >= 24*time.Hour:
		return "2006-01-02"
	case step < time.Minute && sameDay:
		return "15:04:05"
	case step < time.Minute:
		return "01-02 15:04:05"
	case sameDay:
		return "15:04"
	}
	return "01-02 15:04"
}

func unix(s float64) time.Time {
	return time.Unix(0, int64(s*1e9)).UTC()
}
