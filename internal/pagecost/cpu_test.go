package pagecost

import (
	"time"

	"github.com/dbmem/dbmem/internal/cputime"
)

// costOf runs f and returns its wall and CPU time.
func costOf(f func()) (wall, cpu time.Duration) {
	c0, w0 := cputime.Process(), time.Now()
	f()
	return time.Since(w0), cputime.Process() - c0
}
