package oomlog

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// Options tune how Parse reads stamps and sizes. The zero value is usable.
type Options struct {
	// PageSize converts the task table's page counts to bytes (default 4096;
	// 65536 on some arm64 and ppc64le kernels).
	PageSize uint64
	// Location is the zone of stamps printed without a UTC offset (BSD
	// syslog, journalctl's default short output, dmesg -T). Default UTC.
	// Pass the zone of the host that wrote the log, e.g. time.Local when
	// reading this host's log.
	Location *time.Location
	// Year is the year of BSD syslog stamps ("Nov 22 21:29:01"), which print
	// none; it advances when the log passes from December to January. With
	// 0 such stamps are kept in Stamp.Raw but get no Wall time.
	Year int
}

// maxLine bounds one input line; longer lines make Parse fail.
const maxLine = 1 << 20

// Parse reads a kernel log and returns its OOM events in log order, with
// default Options.
func Parse(r io.Reader) ([]Event, error) { return Options{}.Parse(r) }

// Parse reads a kernel log and returns its OOM events in log order. On a read
// error it returns the events found so far and the error.
func (o Options) Parse(r io.Reader) ([]Event, error) {
	if o.PageSize == 0 {
		o.PageSize = 4096
	}
	if o.Location == nil {
		o.Location = time.UTC
	}
	p := &parser{opt: o, sp: splitter{loc: o.Location, year: o.Year}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	for sc.Scan() {
		p.feed(sc.Text())
	}
	events := p.finish()
	if err := sc.Err(); err != nil {
		return events, fmt.Errorf("read kernel log: %w (lines are limited to %d bytes)", err, maxLine)
	}
	return events, nil
}

// feed joins wrapped lines: an unprefixed line that starts with blanks or
// "↪" continues the line before it.
func (p *parser) feed(raw string) {
	raw = strings.TrimRight(raw, "\r")
	l := p.sp.split(raw)
	if p.pending != nil && !l.prefixed && isContinuation(raw) && len(p.pending.raw) < maxBody {
		p.pending.raw += "\n" + raw
		p.pending.body = strings.TrimRight(p.pending.body, " ") + " " +
			strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(raw), "↪"))
		return
	}
	if p.pending != nil {
		p.handle(*p.pending)
	}
	p.pending = &l
}

func isContinuation(raw string) bool {
	return strings.HasPrefix(raw, " ") || strings.HasPrefix(raw, "\t") ||
		strings.HasPrefix(raw, "↪")
}

// finish handles the last line, closes the open event and merges reports
// that were printed (or collected) twice.
func (p *parser) finish() []Event {
	if p.pending != nil {
		p.handle(*p.pending)
		p.pending = nil
	}
	p.close()
	return dedupe(p.events)
}
