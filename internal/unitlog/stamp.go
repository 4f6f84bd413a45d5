package unitlog

import (
	"regexp"
	"strings"
	"time"
)

// Stamp is a line's time as printed and as far as it can be read.
type Stamp struct {
	// Raw is the stamp as printed ("Aug 26 10:49:58", "06:16:20",
	// "[  910.113950]").
	Raw string
	// Wall is the wall-clock time; zero when the line has no date, or a
	// syslog date whose year is not known (Options.Year 0).
	Wall time.Time
	// ZoneKnown is true when the stamp carried a UTC offset.
	ZoneKnown bool
	// Order is Wall, or for a syslog stamp without a year the same month,
	// day and time in year 2000 (a leap year): comparable with stamps of
	// the same log only. Zero when the stamp has no date.
	Order time.Time
	// DaySeconds is the time of day in seconds, -1 when not printed.
	DaySeconds int
	// Monotonic is the time since boot of a "[seconds]" stamp.
	Monotonic    time.Duration
	HasMonotonic bool
}

var (
	isoStampRe    = regexp.MustCompile(`^(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?)(Z|[+-]\d\d:?\d\d)?(?: +|:\s+|$)`)
	syslogStampRe = regexp.MustCompile(`^([A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d(?:\.\d+)?)(?:: +| +|$)`)
	dayStampRe    = regexp.MustCompile(`^(\d\d:\d\d:\d\d(?:\.\d+)?)(?:: +| +)`)
	monoStampRe   = regexp.MustCompile(`^\[ *(\d+\.\d+)\] ?`)
)

// cutStamp takes a stamp off the start of s and returns it with the rest.
func cutStamp(s string, o Options) (Stamp, string) {
	st := Stamp{DaySeconds: -1}
	switch {
	case isoStampRe.MatchString(s):
		m := isoStampRe.FindStringSubmatch(s)
		st.Raw = strings.TrimSpace(m[1] + m[2])
		st.Wall, st.ZoneKnown = parseISO(m[1], m[2], o.loc())
		st.Order, st.DaySeconds = st.Wall, daySeconds(st.Wall)
		return st, s[len(m[0]):]
	case syslogStampRe.MatchString(s):
		m := syslogStampRe.FindStringSubmatch(s)
		st.Raw = m[1]
		st.Wall, st.Order = parseSyslog(m[1], o)
		st.DaySeconds = daySeconds(st.Order)
		return st, s[len(m[0]):]
	case dayStampRe.MatchString(s):
		m := dayStampRe.FindStringSubmatch(s)
		st.Raw = m[1]
		if t, err := time.Parse("15:04:05.999999999", m[1]); err == nil {
			st.DaySeconds = daySeconds(t)
		}
		return st, s[len(m[0]):]
	case monoStampRe.MatchString(s):
		m := monoStampRe.FindStringSubmatch(s)
		st.Raw = strings.TrimSpace(m[0])
		if d, err := time.ParseDuration(m[1] + "s"); err == nil && d >= 0 {
			st.Monotonic, st.HasMonotonic = d, true
		}
		return st, s[len(m[0]):]
	}
	return st, s
}

// ParseStamp reads a stamp as printed (a kernel report's, to compare it
// with unit messages of the same log).
func ParseStamp(raw string, o Options) Stamp {
	st, _ := cutStamp(strings.TrimSpace(raw)+" ", o)
	return st
}

func daySeconds(t time.Time) int {
	if t.IsZero() {
		return -1
	}
	return t.Hour()*3600 + t.Minute()*60 + t.Second()
}

func parseISO(s, zone string, loc *time.Location) (time.Time, bool) {
	s = strings.Replace(strings.Replace(s, ",", ".", 1), " ", "T", 1)
	if zone != "" {
		if len(zone) == 5 && zone != "Z" {
			zone = zone[:3] + ":" + zone[3:]
		}
		if t, err := time.Parse("2006-01-02T15:04:05.999999999Z07:00", s+zone); err == nil {
			return t, true
		}
	}
	t, err := time.ParseInLocation("2006-01-02T15:04:05.999999999", s, loc)
	if err != nil {
		return time.Time{}, false
	}
	return t, false
}

// parseSyslog reads "Aug 26 10:49:58": Wall in Options.Year when known,
// Order in year 2000 either way.
func parseSyslog(s string, o Options) (wall, order time.Time) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return
	}
	t, err := time.Parse("Jan 2 15:04:05.999999999", f[0]+" "+f[1]+" "+f[2])
	if err != nil {
		return
	}
	order = time.Date(2000, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), o.loc())
	if o.Year > 0 {
		wall = time.Date(o.Year, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), o.loc())
	}
	return wall, order
}
