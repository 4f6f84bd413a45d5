package cputime

import (
	"runtime"
	"testing"
	"time"
)

// spin burns CPU on the calling thread for about d of wall time.
func spin(d time.Duration) (n int) {
	for end := time.Now().Add(d); time.Now().Before(end); n++ {
	}
	return n
}

func TestSpinningAddsCPUTime(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p0, t0 := Process(), Thread()
	if spin(200*time.Millisecond) == 0 {
		t.Fatal("did not spin")
	}
	dt := Thread() - t0
	dp := Process() - p0
	// On a busy 2-core machine the thread may get well under its wall
	// time, but never nothing, and the process counts at least the thread
	// (within the kernel's rounding).
	if dt < 10*time.Millisecond || dp+time.Millisecond < dt {
		t.Errorf("after spinning: thread %v, process %v", dt, dp)
	}
}
