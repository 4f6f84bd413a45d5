package loglines

import (
	"bufio"
	"errors"
	"io"
	"strings"
)

// DefaultMax is the longest line Read passes on by default: no line of an
// OOM report or a database log that matters comes close.
const DefaultMax = 1 << 20

// Stats counts what Read saw.
type Stats struct {
	// Lines is the number of lines read, skipped ones included.
	Lines int `json:"lines"`
	// LongLines were longer than the limit and skipped; LongestBytes is the
	// length of the longest of them.
	LongLines    int `json:"long_lines_skipped"`
	LongestBytes int `json:"longest_line_bytes,omitempty"`
}

// Add sums two counts.
func (s Stats) Add(o Stats) Stats {
	s.Lines += o.Lines
	s.LongLines += o.LongLines
	s.LongestBytes = max(s.LongestBytes, o.LongestBytes)
	return s
}

// reader assembles lines from bufio chunks, keeping at most max bytes.
type reader struct {
	max  int
	buf  strings.Builder
	size int // bytes of the current line, including what was not kept
	open bool
	st   Stats
}

// Read calls f with each line of r (without its "\n" or "\r\n"). Lines
// longer than maxBytes (DefaultMax when <= 0) are read to their end and
// skipped. It returns at the end of r or at the first read error, which it
// returns with the counts so far.
func Read(r io.Reader, maxBytes int, f func(line string)) (Stats, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMax
	}
	br := bufio.NewReaderSize(r, 64<<10)
	lr := &reader{max: maxBytes}
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			lr.add(chunk)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if lr.open {
			lr.finish(f)
		}
		if errors.Is(err, io.EOF) {
			return lr.st, nil
		}
		if err != nil {
			return lr.st, err
		}
	}
}

// add keeps what fits of a chunk of the current line; size counts the
// line's bytes without its newline.
func (lr *reader) add(chunk []byte) {
	chunk = []byte(strings.TrimSuffix(string(chunk), "\n"))
	if room := lr.max + 1 - lr.buf.Len(); room > 0 {
		lr.buf.Write(chunk[:min(len(chunk), room)])
	}
	lr.size += len(chunk)
	lr.open = true
}

// finish hands the line to f, or counts it as too long.
func (lr *reader) finish(f func(string)) {
	line, size := lr.buf.String(), lr.size
	lr.buf.Reset()
	lr.size, lr.open = 0, false
	lr.st.Lines++
	if size > lr.max {
		lr.st.LongLines++
		lr.st.LongestBytes = max(lr.st.LongestBytes, size)
		return
	}
	f(strings.TrimSuffix(line, "\r"))
}
