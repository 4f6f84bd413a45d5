package oomlog

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/loglines"
)

// Options tune how Parse reads stamps and sizes. The zero value is usable.
type Options struct {
	// PageSize converts the task table's and Mem-Info's page counts to
	// bytes (default 4096; 65536 on some arm64 and ppc64le kernels).
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

// maxLine bounds one input line; longer lines are skipped and counted
// (Stats.LongLines), never a reason to stop reading.
const maxLine = 1 << 20

// Stats says how much of the input was read.
type Stats = loglines.Stats

// Parse reads a kernel log and returns its OOM events in log order, with
// default Options.
func Parse(r io.Reader) ([]Event, error) { return Options{}.Parse(r) }

// Parse reads a kernel log and returns its OOM events in log order. On a read
// error it returns the events found so far and the error.
func (o Options) Parse(r io.Reader) ([]Event, error) {
	events, _, err := o.ParseStats(r)
	return events, err
}

// ParseStats is Parse that also says how many lines were read and how many
// were too long to be part of a report and were skipped.
func (o Options) ParseStats(r io.Reader) ([]Event, Stats, error) {
	o.PageSize = cmp.Or(o.PageSize, 4096)
	if o.Location == nil {
		o.Location = time.UTC
	}
	p := &parser{opt: o, sp: splitter{loc: o.Location, year: o.Year}}
	st, err := loglines.Read(r, maxLine, p.feed)
	events := p.finish()
	st.LongLines += p.long
	if err != nil {
		return events, st, fmt.Errorf("read kernel log: %w", err)
	}
	return events, st, nil
}

// feed joins wrapped lines: an unprefixed line that starts with blanks or
// "↪" continues the line before it (mail and terminal wrapping), and so
// does an unprefixed line that a terminal cut mid-word (wrapTail).
func (p *parser) feed(raw string) {
	raw = strings.TrimRight(raw, "\r")
	l := p.sp.split(raw)
	if p.pending != nil && !l.prefixed && len(p.pending.raw) < maxBody {
		switch {
		case isContinuation(raw):
			p.pending.raw += "\n" + raw
			p.pending.body = strings.TrimRight(p.pending.body, " ") + " " +
				strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(raw), "↪"))
			return
		case p.pending.prefixed && isWrapTail(raw, p.pending.raw):
			p.pending.raw += "\n" + raw
			p.pending.body += raw
			return
		}
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

// wrapWidth is the shortest line a terminal or a web form wraps.
const wrapWidth = 72

// isWrapTail reports whether raw, an unprefixed line after a long prefixed
// one, is the rest of that line cut at the terminal's width ("/kubepo" +
// "ds/pod..", "rss:44" + "8KB"): not prose (which starts with a capital),
// not markdown, not a line of its own.
func isWrapTail(raw, prev string) bool {
	if raw == "" || len(prev) < wrapWidth {
		return false
	}
	c := raw[0]
	if (c >= 'A' && c <= 'Z') || c == '[' || c == '<' || c == '`' || c == '#' || c == '>' {
		return false
	}
	return !strings.HasPrefix(raw, "...")
}

// finish handles the last line, closes the open event and merges reports
// that were printed (or collected) twice.
func (p *parser) finish() []Event {
	if p.pending != nil {
		p.handle(*p.pending)
		p.pending = nil
	}
	p.close()
	p.adoptOrphans()
	return dedupe(p.events)
}
