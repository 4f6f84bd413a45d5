package postmortem

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/oomlog"
)

// Where the year of a syslog stamp ("Nov 22 21:29:01") came from.
const (
	yearFromDatedLine = "a dated line of the same log"
	yearFromModTime   = "the file's modification time"
	yearUnknown       = "unknown"
)

var (
	syslogStampRe = regexp.MustCompile(`^([A-Z][a-z]{2}) +\d{1,2} \d\d:\d\d:\d\d`)
	// A line of the same log that prints its year: an RFC 3339 stamp
	// (rsyslog, journalctl -o short-iso) or journalctl's header, "-- Logs
	// begin at Sun 2026-11-01 10:00:00 UTC, end at ..." / "-- Journal
	// begins at ...". (A dmesg -T stamp pasted into the same text is
	// another capture, maybe of another host: it does not count.)
	datedLineRe = regexp.MustCompile(`(?m)^(?:(\d{4})-\d\d-\d\dT\d\d:\d\d:\d\d|-- (?:Logs begin|Journal begins) at \w{3} (\d{4})-\d\d-\d\d)`)
)

// needsYear reports a syslog stamp with no year, left without a wall time.
func needsYear(s oomlog.Stamp) bool {
	return s.Wall.IsZero() && syslogStampRe.MatchString(s.Raw)
}

func anyNeedsYear(events []oomlog.Event) bool {
	return slices.ContainsFunc(events, func(e oomlog.Event) bool { return needsYear(e.Time) })
}

// yearFor infers the year of a log's syslog stamps: from a dated line of
// the same log, else from the file's modification time when the file is
// this host's own log (a copy's time says when it was copied, not
// written); else 0: the year is unknown, and said so.
func yearFor(l Log, events []oomlog.Event, me HostID) (int, string) {
	if y := datedYear(l.Text); y != 0 {
		return y, yearFromDatedLine
	}
	if l.ModTime.IsZero() || !ownFile(l, events, me) {
		return 0, yearUnknown
	}
	return syslogYear(l.Text, l.ModTime), yearFromModTime
}

// ownFile: a file dbmem found on this host, or a given one whose lines name it.
func ownFile(l Log, events []oomlog.Event, me HostID) bool {
	if !l.Given {
		return true
	}
	for _, e := range events {
		if this, _ := origin(l, e, me); this {
			return true
		}
	}
	return false
}

// datedYear returns the year of the first dated line, or 0.
func datedYear(text []byte) int {
	m := datedLineRe.FindSubmatch(text)
	if m == nil {
		return 0
	}
	y, _ := strconv.Atoi(string(m[1]) + string(m[2]))
	if y < 1990 || y > 2200 {
		return 0
	}
	return y
}

var syslogMonthRe = regexp.MustCompile(`^([A-Z][a-z]{2}) [ \d]\d \d\d:\d\d:\d\d`)

// syslogYear guesses the year of the first line of a syslog file from the
// file's modification time: BSD syslog stamps print no year. A first line
// in a later month than the file's last write is from the year before.
func syslogYear(text []byte, mtime time.Time) int {
	first, _, _ := strings.Cut(string(text[:min(len(text), 256)]), "\n")
	m := syslogMonthRe.FindStringSubmatch(first)
	if m == nil {
		return mtime.Year()
	}
	t, err := time.Parse("Jan", m[1])
	if err == nil && t.Month() > mtime.Month() {
		return mtime.Year() - 1
	}
	return mtime.Year()
}
