package watch

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// measure runs f on one locked OS thread and returns that thread's CPU time
// (user + system) and the wall-clock time. System time includes what the
// kernel spent producing the /proc files, which is the cost to the host.
func measure(f func()) Cost {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := threadCPU()
	t0 := time.Now()
	f()
	return Cost{CPU: threadCPU() - cpu0, Wall: time.Since(t0)}
}

func threadCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
