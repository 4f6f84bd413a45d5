package dblog

import (
	"fmt"
	"io"
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
		case ok && isDetail(e.severity) && pending != nil && (e.pid == pending.pid || e.pid == 0):
			pending.attach(e)
		case ok:
			flush()
			pending = &e
		case strings.HasPrefix(raw, "\t") && pending != nil:
			pending.continueWith(raw)
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
