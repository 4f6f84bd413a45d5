package postmortem

import (
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/dbmem/dbmem/internal/units"
)

// streamBudget bounds the bytes read from a log that is not a regular file
// (a pipe, a FIFO, a character device such as /dev/urandom, which never
// ends): four times keep, the bytes kept of it, at least 64 MiB. Past it
// the read stops, keeps the last keep bytes and says so.
func streamBudget(keep int64) int64 { return max(4*keep, 64<<20) }

// errStreamBudget ends a stream read at its byte budget.
var errStreamBudget = errors.New("stream over its byte budget")

// streamLimit reads r up to left bytes and until a wall-clock deadline,
// checked at each read: a device has no read deadline of its own
// (os.ErrNoDeadline), so an endless one would never time out.
type streamLimit struct {
	r     io.Reader
	left  int64
	until time.Time
}

func (s *streamLimit) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, errStreamBudget
	}
	if time.Now().After(s.until) {
		return 0, errStreamDeadline
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
	}
	n, err := s.r.Read(p)
	s.left -= int64(n)
	return n, err
}

// streamNote says why a stream's read stopped short of its end.
func streamNote(read int64, kept int) string {
	return fmt.Sprintf("read from a pipe, FIFO or device: stopped after %s, its byte budget (the input never ended); the last %s kept",
		units.Bytes(uint64(read)), units.Bytes(uint64(kept)))
}

// notText reports whether b does not look like a log: more than a tenth
// of its bytes are neither printable UTF-8 nor tab, line or carriage
// return (a device's random bytes, a binary file).
func notText(b []byte) bool {
	bad, n := 0, 0
	for len(b) > 0 && n < 1<<20 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 || r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
			bad++
		}
		b, n = b[size:], n+1
	}
	return n > 0 && bad*10 > n
}
