package oomlog

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// line is one input line with its prefix taken apart.
type line struct {
	raw   string
	stamp Stamp
	body  string
	// prefixed is true when a known prefix was found; an unprefixed line
	// starting with blanks or "↪" continues the previous line.
	prefixed bool
	// other is true for a syslog line from a program other than the kernel.
	other bool
	// host is the syslog or journal host name, when printed.
	host string
}

var (
	// "6,1234,123456789,-;message" from /dev/kmsg.
	kmsgRe = regexp.MustCompile(`^\d+,\d+,(\d+),[^;]*;`)
	// "<4>" priority from dmesg -r.
	prioRe = regexp.MustCompile(`^<\d{1,3}>`)
	// "kern  :info  : " from dmesg -x.
	facilityRe = regexp.MustCompile(`^[a-z]+ *:[a-z]+ *: `)
	// "2026-11-22T21:29:01.123456+00:00 " (journalctl -o short-iso, rsyslog,
	// dmesg --time-format iso).
	isoRe = regexp.MustCompile(`^(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?) +`)
	// "Nov 22 21:29:01 " or "Nov 22 21:29:01.123456 " (BSD syslog, journalctl).
	syslogRe = regexp.MustCompile(`^([A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d(?:\.\d+)?) +`)
	// "host kernel: " or "host prog[123]: " after a syslog or iso stamp; the
	// host may be anything a poster left there ("**", "<osname>").
	identRe = regexp.MustCompile(`^(\S+) ([\w.@/-]+)(?:\[\d+\])?: ?`)
	// "[  123.456789]" and an optional caller id "[    T71]".
	monoRe = regexp.MustCompile(`^\[ *(\d+\.\d+)\](?:\[ *[TC]\d+\])? ?`)
	// "[Sun Nov 22 21:29:01 2026] " from dmesg -T, any locale.
	ctimeRe = regexp.MustCompile(`^\[([^\]]*\d\d:\d\d:\d\d[^\]]*)\] ?`)
	// dmesg -H: "[Oct28 16:58] " and "[  +0.000006] " (delta to the line before).
	humanRe = regexp.MustCompile(`^\[(?:[A-Z][a-z]{2}\d{1,2} \d\d:\d\d| *\+\d+\.\d+)\] ?`)
	// "[  123.456789] host kernel: " as journalctl -o short-monotonic prints.
	monoIdentRe = regexp.MustCompile(`^(\S+) kernel: ?`)
	// "5193605.506728] ": a [seconds] stamp whose "[" a copy left behind.
	cutMonoRe = regexp.MustCompile(`^(\d+\.\d{6})\] `)
	// "06:16:18 kernel: ": a syslog copy that kept the time of day only.
	dayIdentRe = regexp.MustCompile(`^\d\d:\d\d:\d\d(?:\.\d+)? +([\w.@/-]+)(?:\[\d+\])?: `)
	// "percona # [   16.869199] ": a test harness's label before a stamp.
	labelRe = regexp.MustCompile(`^[^\s\[\]:][^\[\]:]{0,40}? \[ *\d+\.\d+\]`)
)

// splitter takes prefixes off lines; it keeps the year for syslog stamps.
type splitter struct {
	loc       *time.Location
	year      int
	lastMonth time.Month
}

// split takes the prefixes off raw and reads the stamps in them. A line
// quoted when posted ("> ", a leading quote, "**" or "`") is read without
// the quoting when that reveals a prefix.
func (sp *splitter) split(raw string) line {
	if strings.ContainsAny(raw[:min(len(raw), 1)], ">\"*`") {
		q := strings.TrimLeft(raw, ">\"*` ")
		if ql := sp.splitPrefix(q); ql.prefixed {
			ql.raw = raw
			return ql
		}
	}
	l := sp.splitPrefix(raw)
	if !l.prefixed && (strings.HasPrefix(raw, " ") || strings.HasPrefix(raw, "\t")) {
		// An indented paste: a prefix after the blanks makes it a line of
		// its own, not a continuation.
		if il := sp.splitPrefix(strings.TrimLeft(raw, " \t")); il.prefixed && il.stamp.Raw != "" {
			il.raw = raw
			return il
		}
	}
	return l
}

func (sp *splitter) splitPrefix(raw string) line {
	l := line{raw: raw}
	rest := raw
	start := len(rest)
	rest = sp.wallPrefix(rest, &l)
	rest = sp.localPrefix(rest, &l)
	l.prefixed = l.prefixed || len(rest) != start
	l.stamp.Raw = strings.TrimSpace(raw[:len(raw)-len(rest)])
	l.stamp.setClock()
	l.body = rest
	return l
}

// wallPrefix takes off a syslog/journal stamp and its "host ident:" part,
// or a bare "kernel: " as some copies keep.
func (sp *splitter) wallPrefix(rest string, l *line) string {
	if m := isoRe.FindStringSubmatch(rest); m != nil {
		t, zoned, ok := parseISO(m[1], sp.loc)
		if ok {
			l.stamp.Wall, l.stamp.ZoneKnown = t, zoned
		}
		rest = rest[len(m[0]):]
		if strings.Contains(m[1], ",") {
			// dmesg --time-format iso: a decimal comma and no host or ident.
			l.prefixed = true
			return rest
		}
	} else if m := syslogRe.FindStringSubmatch(rest); m != nil {
		if t, ok := parseSyslog(m[1], sp.yearFor(m[1]), sp.loc); ok {
			l.stamp.Wall = t
		}
		rest = rest[len(m[0]):]
	} else if strings.HasPrefix(rest, "kernel: ") {
		l.prefixed = true
		return rest[len("kernel: "):]
	} else if m := dayIdentRe.FindStringSubmatch(rest); m != nil {
		// "06:16:18 kernel: [58632.865465] ": a time of day only; the
		// [seconds] stamp after it is read as usual. "06:16:20
		// systemd[1]: " is another program's line.
		l.prefixed, l.other = true, m[1] != "kernel"
		return rest[len(m[0]):]
	} else {
		return rest
	}
	l.prefixed = true
	if m := identRe.FindStringSubmatch(rest); m != nil && !strings.HasPrefix(rest, "[") {
		l.other = m[2] != "kernel"
		l.host = m[1]
		rest = rest[len(m[0]):]
	}
	return rest
}

// localPrefix takes off what dmesg and the kernel itself put in front of a
// message: kmsg records, priorities, facility names and [seconds] stamps.
func (sp *splitter) localPrefix(rest string, l *line) string {
	if !l.prefixed {
		rest = cutLabel(rest, l)
	}
	for i := 0; i < 4; i++ {
		before := rest
		if m := kmsgRe.FindStringSubmatch(rest); m != nil {
			if us, err := strconv.ParseInt(m[1], 10, 64); err == nil && us >= 0 {
				l.stamp.Monotonic, l.stamp.HasMonotonic = time.Duration(us)*time.Microsecond, true
			}
			rest = rest[len(m[0]):]
		}
		rest = strings.TrimPrefix(rest, prioRe.FindString(rest))
		rest = strings.TrimPrefix(rest, facilityRe.FindString(rest))
		rest = sp.bracketStamp(rest, l)
		if rest == before {
			break
		}
	}
	return rest
}

// cutLabel takes off a harness label before a [seconds] stamp and a stamp
// that lost its "[" to a copy that started mid-line.
func cutLabel(rest string, l *line) string {
	if m := cutMonoRe.FindStringSubmatch(rest); m != nil {
		if d, ok := parseSeconds(m[1]); ok {
			l.stamp.Monotonic, l.stamp.HasMonotonic = d, true
		}
		l.prefixed = true
		return rest[len(m[0]):]
	}
	if m := labelRe.FindString(rest); m != "" {
		return rest[strings.LastIndex(m, "["):]
	}
	return rest
}

// bracketStamp takes off "[ 12.345]", "[Sun Nov 22 21:29:01 2026]" or a
// dmesg -H stamp.
func (sp *splitter) bracketStamp(rest string, l *line) string {
	if m := monoRe.FindStringSubmatch(rest); m != nil {
		if d, ok := parseSeconds(m[1]); ok {
			l.stamp.Monotonic, l.stamp.HasMonotonic = d, true
		}
		rest = rest[len(m[0]):]
		if m := monoIdentRe.FindString(rest); m != "" && !l.prefixed {
			rest = rest[len(m):]
		}
		return rest
	}
	if m := humanRe.FindString(rest); m != "" {
		return rest[len(m):]
	}
	if m := ctimeRe.FindStringSubmatch(rest); m != nil {
		if t, ok := parseCtime(m[1], sp.loc); ok && l.stamp.Wall.IsZero() {
			l.stamp.Wall = t
		}
		return rest[len(m[0]):]
	}
	return rest
}

// yearFor returns the year of a syslog stamp: Options.Year, moved on by one
// each time the month goes back from December to January.
func (sp *splitter) yearFor(stamp string) int {
	if sp.year == 0 {
		return 0
	}
	if t, err := time.Parse("Jan", stamp[:3]); err == nil {
		if sp.lastMonth == time.December && t.Month() == time.January {
			sp.year++
		}
		sp.lastMonth = t.Month()
	}
	return sp.year
}
