package oomlog

import (
	"strconv"
	"strings"
	"time"
)

// Clock says which clock a stamp was read from.
type Clock string

// Clocks a kernel log line can carry.
const (
	// ClockNone: no stamp, or one that cannot be read (e.g. `dmesg -T` in a
	// non-English locale); Stamp.Raw still holds it.
	ClockNone Clock = ""
	// ClockMonotonic: seconds since boot, `[  123.456789]`. Convert with
	// MonotonicToWall or SetBootTime.
	ClockMonotonic Clock = "monotonic"
	// ClockWall: a calendar date and time (syslog, journalctl, dmesg -T).
	ClockWall Clock = "wall"
)

// Stamp is the time of a log line as printed and as far as it can be read.
type Stamp struct {
	// Raw is the prefix as printed, e.g. "Nov 22 21:29:01 db1 kernel: [ 12.5]".
	Raw string
	// Clock is ClockWall when Wall is set, else ClockMonotonic when
	// HasMonotonic, else ClockNone.
	Clock Clock
	// Wall is the wall-clock time. When the line carried no UTC offset it is
	// read in Options.Location and ZoneKnown is false.
	Wall      time.Time
	ZoneKnown bool
	// Monotonic is the time since boot, when the line carried one.
	Monotonic    time.Duration
	HasMonotonic bool
}

func (s *Stamp) setClock() {
	switch {
	case !s.Wall.IsZero():
		s.Clock = ClockWall
	case s.HasMonotonic:
		s.Clock = ClockMonotonic
	default:
		s.Clock = ClockNone
	}
}

// MonotonicToWall converts a time since boot (a dmesg `[seconds]` stamp) to
// wall-clock time given the boot time (/proc/stat btime, or `uptime -s`).
// Like `dmesg -T` it is off by the time the machine spent suspended.
func MonotonicToWall(since time.Duration, boot time.Time) time.Time {
	return boot.Add(since)
}

// SetBootTime fills Wall for events whose stamp has only a monotonic time.
// Stamps that already carry a wall time are left alone.
func SetBootTime(events []Event, boot time.Time) {
	for i := range events {
		s := &events[i].Time
		if s.Wall.IsZero() && s.HasMonotonic {
			s.Wall = MonotonicToWall(s.Monotonic, boot)
			s.ZoneKnown = true
			s.setClock()
		}
	}
}

// parseSeconds reads "12345.678901" into a duration.
func parseSeconds(s string) (time.Duration, bool) {
	whole, frac, _ := strings.Cut(strings.TrimSpace(s), ".")
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || sec < 0 || sec > 1<<32 {
		return 0, false
	}
	d := time.Duration(sec) * time.Second
	if frac != "" {
		if len(frac) > 9 {
			frac = frac[:9]
		}
		n, err := strconv.ParseInt(frac, 10, 64)
		if err != nil || n < 0 {
			return 0, false
		}
		for i := len(frac); i < 9; i++ {
			n *= 10
		}
		d += time.Duration(n)
	}
	return d, true
}

// isoLayouts read RFC 3339 stamps as journalctl -o short-iso(-precise),
// rsyslog and dmesg --time-format iso print them.
var isoLayouts = []string{
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02 15:04:05.999999999Z07:00",
}

// parseISO reads an RFC 3339-like stamp; without an offset it is read in loc.
func parseISO(s string, loc *time.Location) (time.Time, bool, bool) {
	s = strings.Replace(s, ",", ".", 1)
	for _, l := range isoLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true, true
		}
	}
	for _, l := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, false, true
		}
	}
	return time.Time{}, false, false
}

// parseSyslog reads "Nov 22 21:29:01(.123456)" in loc; the year comes from
// the caller since BSD syslog does not print one.
func parseSyslog(s string, year int, loc *time.Location) (time.Time, bool) {
	t, err := time.Parse("Jan _2 15:04:05.999999999", strings.Join(strings.Fields(s), " "))
	if err != nil {
		t, err = time.Parse("Jan 2 15:04:05.999999999", strings.Join(strings.Fields(s), " "))
	}
	if err != nil || year == 0 {
		return time.Time{}, false
	}
	return time.Date(year, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc), true
}

// parseCtime reads a `dmesg -T` stamp "Sun Nov 22 21:29:01 2026" in loc.
func parseCtime(s string, loc *time.Location) (time.Time, bool) {
	t, err := time.ParseInLocation("Mon Jan _2 15:04:05 2006", strings.Join(strings.Fields(s), " "), loc)
	if err != nil {
		t, err = time.ParseInLocation("Mon Jan 2 15:04:05 2006", strings.Join(strings.Fields(s), " "), loc)
	}
	return t, err == nil
}
