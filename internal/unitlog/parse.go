package unitlog

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/loglines"
	"github.com/dbmem/dbmem/internal/units"
)

// Options tune how stamps are read. The zero value is usable.
type Options struct {
	// Location reads stamps printed without a zone (default UTC).
	Location *time.Location
	// Year is the year of syslog stamps ("Aug 26 10:49:58"); 0 leaves
	// their wall time unknown (Stamp.Order still sorts them).
	Year int
}

func (o Options) loc() *time.Location {
	if o.Location == nil {
		return time.UTC
	}
	return o.Location
}

// Log is what Parse found, in log order.
type Log struct {
	Units   []UnitEvent
	Killers []KillerEvent
	Stats   loglines.Stats
}

// maxLine bounds the lines read; longer ones are skipped and counted.
const maxLine = 64 << 10

// Parse reads a syslog or journal text (see Journal for exports). On a
// read error it returns what it found so far with the error.
func (o Options) Parse(r io.Reader) (Log, error) {
	p := &parser{o: o}
	st, err := loglines.Read(r, maxLine, p.line)
	p.out.Stats = st
	if err != nil {
		return p.out, fmt.Errorf("read service log: %w", err)
	}
	return p.out, nil
}

// Parse reads a log with default Options.
func Parse(r io.Reader) (Log, error) { return Options{}.Parse(r) }

// line is one log line taken apart.
type line struct {
	raw   string
	stamp Stamp
	host  string
	ident string
	pid   *int
	msg   string
}

// parser follows the messages that span lines (earlyoom's, oomd's, kubelet's).
type parser struct {
	o   Options
	out Log
	// earlyoom: the last "mem avail" and "low memory" lines.
	avail, limits string
	// oomd: the last "Memory pressure for X is P% > L% for > D" line.
	pressure []string
	// kubelet: the resource being reclaimed, and the eviction opened by
	// "must evict pod(s)".
	reclaim  string
	evicting int
	// pendingSignal is oomd's "attempting to kill N with KILL".
	pendingSignal string
}

var (
	identRe = regexp.MustCompile(`^([\w.@/-]+)(?:\[(\d+)\])?: ?`)
	hostRe  = regexp.MustCompile(`^(\S+) ([\w.@/-]+)(?:\[(\d+)\])?: ?`)
	// klog's header: "I0902 15:20:12.963531   18530 eviction_manager.go:237] ".
	klogRe = regexp.MustCompile(`^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [\w.-]+:\d+\] `)
)

// knownIdents are the programs whose lines matter, recognised without a PID.
var knownIdents = map[string]bool{"kernel": true, "systemd": true, "systemd-oomd": true, "earlyoom": true, "kubelet": true}

func (p *parser) line(raw string) { p.ident(raw) }

// ident reads one line and returns the program it names ("" for none,
// "--" for journalctl's headers and explanations).
func (p *parser) ident(raw string) string {
	raw = strings.TrimRight(raw, "\r")
	s := strings.TrimLeft(raw, " \t>`*\"")
	if strings.HasPrefix(s, "-- ") || s == "--" {
		return "--" // journalctl -x explanations
	}
	l := line{raw: raw}
	l.stamp, s = cutStamp(s, p.o)
	l.host, l.ident, l.pid, s = cutIdent(s)
	if l.ident == "kernel" {
		st, rest := cutStamp(s, p.o)
		if st.HasMonotonic {
			if l.stamp.Raw == "" {
				l.stamp = st
			}
			l.stamp.Monotonic, l.stamp.HasMonotonic = st.Monotonic, true
		}
		s = rest
	}
	l.msg = strings.TrimSpace(klogRe.ReplaceAllString(s, ""))
	p.dispatch(l)
	return l.ident
}

// cutIdent takes "host ident[pid]: " or "ident[pid]: " off s; an ident
// without a PID counts only when it is a program dbmem reads.
func cutIdent(s string) (host, ident string, pid *int, rest string) {
	if m := identRe.FindStringSubmatch(s); m != nil && (m[2] != "" || knownIdents[m[1]]) {
		return "", m[1], units.AtoiPtr(m[2]), s[len(m[0]):]
	}
	if m := hostRe.FindStringSubmatch(s); m != nil && (m[3] != "" || knownIdents[m[2]]) {
		return m[1], m[2], units.AtoiPtr(m[3]), s[len(m[0]):]
	}
	return "", "", nil, s
}

// dispatch sends a line to the reader of its program; a line with no
// program is tried by each (pastes often drop the prefix).
func (p *parser) dispatch(l line) {
	switch l.ident {
	case "systemd":
		p.unitLine(l)
	case "systemd-oomd":
		p.oomdLine(l)
	case "earlyoom":
		p.earlyoomLine(l)
	case "kubelet":
		p.kubeletLine(l)
	case "kernel":
		p.panicLine(l)
	default:
		if !p.unitLine(l) && !p.oomdLine(l) && !p.earlyoomLine(l) && !p.kubeletLine(l) {
			p.panicLine(l)
		}
	}
}
