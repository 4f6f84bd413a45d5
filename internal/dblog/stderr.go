package dblog

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// sink receives what a log reader finds, in log order.
type sink interface {
	entry(e entry)
	dumpLine(raw string)
}

// readStderr reads a stderr log (any prefix) into s.
func readStderr(r io.Reader, loc *time.Location, s sink) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	var pending *entry
	flush := func() {
		if pending != nil {
			s.entry(*pending)
			pending = nil
		}
	}
	for sc.Scan() {
		raw := strings.TrimRight(sc.Text(), "\r")
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
	}
	flush()
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read database log: %w", err)
	}
	return nil
}
