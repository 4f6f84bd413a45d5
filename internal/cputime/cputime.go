package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// Process is the CPU time of the whole process so far: every thread,
// collectors and GC included, and the kernel's work for its reads.
func Process() time.Duration { return usage(unix.RUSAGE_SELF) }

// Thread is the CPU time of the calling OS thread so far; lock the
// goroutine to its thread (runtime.LockOSThread) around what is measured.
func Thread() time.Duration { return usage(unix.RUSAGE_THREAD) }

// usage is user + system time; 0 when getrusage fails.
func usage(who int) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
