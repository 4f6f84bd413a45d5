package dblog

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/loglines"
)

// sink receives what a log reader finds, in log order.
type sink interface {
	entry(e entry)
	dumpLine(raw string)
}

// readStderr reads a stderr log (any prefix) into s.
func readStderr(r io.Reader, loc *time.Location, s sink) (loglines.Stats, error) {
	var pending *entry
	flush := func() {
		if pending != nil {
			s.entry(*pending)
			pending = nil
		}
	}
	st, err := loglines.Read(r, maxLine, func(raw string) {
		e, ok := splitLine(raw, loc)
		switch {
		case ok && isDetail(e.severity) && pending != nil && (e.pid == pending.pid || e.pid == 0 || pending.pid == 0):
			pending.attach(e)
		case ok:
			flush()
			pending = &e
		case pending != nil && isContinuation(raw):
			pending.continueWith(continuation(raw))
		default:
			flush()
			s.dumpLine(raw)
		}
	})
	flush()
	if err != nil {
		return st, fmt.Errorf("read database log: %w", err)
	}
	return st, nil
}

// maxLine bounds the lines read; longer ones are skipped and counted.
const maxLine = 4 << 20

// isContinuation: a line of a multi-line message (a query, a detail):
// PostgreSQL starts each with a tab, after any prefix a container runtime
// or docker logs --timestamps put before it.
func isContinuation(raw string) bool { return strings.HasPrefix(continuation(raw), "\t") }

// continuation takes off a container runtime's prefix ("postgres_1  | ")
// and docker's stamp ("2017-10-05T19:43:05.270392682Z "), and a carriage
// return a Windows log ends its lines with.
func continuation(raw string) string {
	raw = strings.TrimSuffix(raw, "\r")
	raw = composeRe.ReplaceAllString(raw, "")
	if m := dockerStampRe.FindString(raw); m != "" {
		raw = raw[len(m):]
	}
	return raw
}

var dockerStampRe = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z `)
