package pagecost

import (
	"syscall"
	"time"
)

// cpuTime is the user+system CPU time of this test process so far. It is
// less disturbed than wall time by other work on a 2-core machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// costOf runs f and returns its wall and CPU time.
func costOf(f func()) (wall, cpu time.Duration) {
	c0, w0 := cpuTime(), time.Now()
	f()
	return time.Since(w0), cpuTime() - c0
}
