package watch

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Keys on a terminal (Options.Keys): q quits, p pauses, s sorts the
// instance table by its next column, + and - change the interval, h shows
// the help. Ctrl-C quits too: in raw mode it arrives as a byte, not a signal.
const (
	keyQuit   = 'q'
	keyCtrlC  = 0x03
	keyPause  = 'p'
	keySort   = 's'
	keyFaster = '-'
	keySlower = '+'
	keyHelp   = 'h'
)

// sortKeys are the columns the instance table can be sorted by, in the
// order the s key steps through them.
var sortKeys = []string{"port", "private", "conns", "vmpte", "shared", "data dir"}

// intervals are the steps of + and -.
var intervals = []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second,
	10 * time.Second, 30 * time.Second, time.Minute, 5 * time.Minute}

// view is what the keys changed.
type view struct {
	paused   bool
	sort     int // index into sortKeys
	interval time.Duration
	help     bool
	keys     bool // keys are read: show the status line and sort
	backendKeys
}

// press applies one key; quit is true for q and Ctrl-C.
func (v *view) press(k byte) (quit bool) {
	switch k {
	case keyQuit, 'Q', keyCtrlC:
		return true
	case keyPause, 'P', ' ':
		v.paused = !v.paused
	case keySort, 'S':
		v.sort = (v.sort + 1) % len(sortKeys)
	case keySlower, '=':
		v.interval = step(v.interval, +1)
	case keyFaster, '_':
		v.interval = step(v.interval, -1)
	case keyHelp, 'H', '?':
		v.help = !v.help
	}
	return false
}

// step is the next interval up (+1) or down (-1) from d.
func step(d time.Duration, dir int) time.Duration {
	if dir > 0 {
		for _, x := range intervals {
			if x > d {
				return x
			}
		}
		return d
	}
	for i := len(intervals) - 1; i >= 0; i-- {
		if intervals[i] < d {
			return intervals[i]
		}
	}
	return d
}

// status is the line that tells the keys and the state they set.
func (v view) status() string {
	state := ""
	if v.paused {
		state = "PAUSED  "
	}
	return fmt.Sprintf("%skeys: q quit  p pause  s sort (%s)  +/- interval (%s)  x X-ray  h help", state, sortKeys[v.sort], v.interval)
}

// helpLines explain the keys.
func (v view) helpLines() []string {
	return []string{
		"KEYS",
		"  q, Ctrl-C  quit (the terminal is restored)",
		"  p, space   pause: no sampling until pressed again; the screen keeps the last tick",
		"  s          sort the PostgreSQL instances by the next column: " + strings.Join(sortKeys, ", ") +
			" (the MySQL/MariaDB servers keep the order found)",
		"  +, -       sample less or more often: " + strings.Join(durations(intervals), ", "),
		"  j, k, arrows  select a backend in BACKENDS (most expensive first)",
		"  x          X-ray the selected backend: its memory contexts by group (PostgreSQL 14+; one LOG line per",
		"             context in the server's log); x again closes it",
		"  b          show or hide BACKENDS",
		"  h, ?       show or hide this help",
	}
}

func durations(ds []time.Duration) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}

// readKeys sends each byte read from r until it fails; the reader is the
// terminal, in raw mode, so a key is a byte.
func readKeys(r io.Reader, out chan<- byte) {
	buf := make([]byte, 16)
	for {
		n, err := r.Read(buf)
		for _, b := range buf[:n] {
			out <- b
		}
		if err != nil {
			close(out)
			return
		}
	}
}
