package dblog

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// zoneOffsets are the abbreviations log_timezone zones print, with their
// UTC offsets. Abbreviations that mean different offsets in different
// places (CST, IST, AST, ...) are left out: Options.Location decides those.
var zoneOffsets = map[string]int{
	"UTC": 0, "GMT": 0, "Z": 0, "UT": 0, "WET": 0, "WEST": 3600, "BST": 3600,
	"CET": 3600, "CEST": 7200, "MET": 3600, "MEST": 7200, "EET": 7200, "EEST": 10800,
	"MSK": 10800, "SAST": 7200, "CAT": 7200, "EAT": 10800, "WAT": 3600,
	"EST": -5 * 3600, "EDT": -4 * 3600, "CDT": -5 * 3600, "MST": -7 * 3600, "MDT": -6 * 3600,
	"PST": -8 * 3600, "PDT": -7 * 3600, "AKST": -9 * 3600, "AKDT": -8 * 3600, "HST": -10 * 3600,
	"NST": -3*3600 - 1800, "NDT": -2*3600 - 1800,
	"JST": 9 * 3600, "KST": 9 * 3600, "HKT": 8 * 3600, "PKT": 5 * 3600, "WIB": 7 * 3600,
	"AWST": 8 * 3600, "ACST": 9*3600 + 1800, "ACDT": 10*3600 + 1800, "AEST": 10 * 3600,
	"AEDT": 11 * 3600, "NZST": 12 * 3600, "NZDT": 13 * 3600,
}

var numericZoneRe = regexp.MustCompile(`^([+-])(\d\d):?(\d\d)?$`)

// zoneOf resolves a printed zone: an abbreviation from zoneOffsets or a
// numeric offset such as "+01", "-0330", "+05:30". ok is false otherwise.
func zoneOf(z string) (*time.Location, bool) {
	if off, ok := zoneOffsets[z]; ok {
		return time.FixedZone(z, off), true
	}
	m := numericZoneRe.FindStringSubmatch(z)
	if m == nil {
		return nil, false
	}
	h, _ := strconv.Atoi(m[2])
	min, _ := strconv.Atoi(m[3])
	off := h*3600 + min*60
	if m[1] == "-" {
		off = -off
	}
	return time.FixedZone(z, off), true
}

var (
	// %m / %t: "2026-11-22 21:29:01.123 UTC", "2026-11-22 21:29:01 CET",
	// "2026-11-22 21:29:01.123 +01", docker's "2017-10-05T19:43:05.270392682Z".
	pgTimeRe = regexp.MustCompile(`(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?)\*{0,2}(?: ?([A-Za-z]{1,6}|[+-]\d\d(?::?\d\d)?)\b)?`)
	// %n: "1732310941.123"
	epochRe = regexp.MustCompile(`^(\d{9,11})\.(\d{3})\b`)
)

// stamp is a database log time as printed and as read.
type stamp struct {
	raw       string
	t         time.Time
	zoneKnown bool
	// zone is the zone as printed ("CST", "+01"), "" when none was.
	zone string
}

// parseStamp reads the time in s, a line's prefix: the last date-time in
// it (a log viewer may put its own time before the server's); n is where
// what follows the stamp starts.
func parseStamp(s string, loc *time.Location) (st stamp, n int) {
	all := pgTimeRe.FindAllStringSubmatchIndex(s, -1)
	if len(all) > 0 {
		m := all[len(all)-1]
		st.raw = s[m[0]:m[1]]
		zoneText := ""
		if m[4] >= 0 {
			zoneText = s[m[4]:m[5]]
		}
		zone, known := zoneOf(zoneText)
		if !known {
			zone = loc
		}
		t, err := time.ParseInLocation("2006-01-02 15:04:05.999999999", strings.Replace(s[m[2]:m[3]], "T", " ", 1), zone)
		if err == nil {
			st.t, st.zoneKnown, st.zone = t, known, zoneText
		}
		return st, m[1]
	}
	if m := epochRe.FindStringSubmatch(s); m != nil {
		sec, _ := strconv.ParseInt(m[1], 10, 64)
		ms, _ := strconv.ParseInt(m[2], 10, 64)
		return stamp{raw: m[0], t: time.Unix(sec, ms*1e6).UTC(), zoneKnown: true}, len(m[0])
	}
	return stamp{}, 0
}
