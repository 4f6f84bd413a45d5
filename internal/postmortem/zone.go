package postmortem

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // bundles name zones that the reading host may not have

	"github.com/dbmem/dbmem/internal/linux"
)

// HostZone returns the time zone of the host behind fs and its name: TZ on
// the live host, else the target of /etc/localtime, else /etc/timezone;
// UTC when none says. Kernel and database logs print local times without
// a zone, so this is how they are read.
func HostZone(fs linux.FS) (*time.Location, string) {
	var names []string
	if fs.IsLive() {
		names = append(names, strings.TrimPrefix(os.Getenv("TZ"), ":"))
	}
	if t, err := os.Readlink(fs.HostPath("/etc/localtime")); err == nil {
		if _, after, ok := strings.Cut(t, "zoneinfo/"); ok {
			names = append(names, after)
		}
	}
	if b, err := os.ReadFile(fs.HostPath("/etc/timezone")); err == nil {
		names = append(names, strings.TrimSpace(string(b)))
	}
	for _, n := range names {
		if loc, ok := ParseZone(n); ok {
			return loc, n
		}
	}
	if fs.IsLive() {
		name := ZoneName(time.Local, time.Now())
		loc, _ := ParseZone(name)
		return loc, name
	}
	return time.UTC, "UTC"
}

var fixedZoneRe = regexp.MustCompile(`^UTC([+-])(\d\d):(\d\d)$`)

// ParseZone reads an IANA zone name or "UTC+hh:mm".
func ParseZone(name string) (*time.Location, bool) {
	if name == "" || name == "Local" {
		return nil, false
	}
	if m := fixedZoneRe.FindStringSubmatch(name); m != nil {
		h, _ := strconv.Atoi(m[2])
		mi, _ := strconv.Atoi(m[3])
		off := h*3600 + mi*60
		if m[1] == "-" {
			off = -off
		}
		return time.FixedZone(name, off), true
	}
	loc, err := time.LoadLocation(name)
	return loc, err == nil
}

// ZoneName names loc so that ParseZone reads it back: its IANA name, or
// its offset at t as "UTC+hh:mm" when it has none (time.Local).
func ZoneName(loc *time.Location, t time.Time) string {
	if n := loc.String(); n != "Local" && n != "" {
		if _, ok := ParseZone(n); ok {
			return n
		}
	}
	_, off := t.In(loc).Zone()
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	return fmt.Sprintf("UTC%s%02d:%02d", sign, off/3600, off%3600/60)
}
