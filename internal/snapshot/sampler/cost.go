package sampler

import (
	"runtime"
	"time"

	"github.com/dbmem/dbmem/internal/cputime"
)

// timed runs f on one locked OS thread and returns that thread's CPU time
// (user + system) and the wall-clock time. System time includes what the
// kernel spent producing the /proc files, which is the cost to the host.
func timed(f func()) Cost {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := cputime.Thread()
	t0 := time.Now()
	f()
	return Cost{CPU: cputime.Thread() - cpu0, Wall: time.Since(t0)}
}
