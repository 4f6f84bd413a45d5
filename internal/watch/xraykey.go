package watch

import (
	"context"
	"fmt"
)

// xrayRunner runs the X-ray the x key asks for, one at a time, off the
// loop that draws (a dump takes from milliseconds to seconds to appear in
// the server's log).
type xrayRunner struct {
	last    *Sample
	running bool
	done    chan xrayDone
}

type xrayDone struct {
	pid   int
	lines []string
}

// start runs the X-ray asked for, if any and none runs.
func (x *xrayRunner) start(ctx context.Context, fn func(context.Context, *Sample, int) []string, v *view) {
	pid := v.askXRay
	if pid == 0 {
		return
	}
	v.askXRay = 0
	if fn == nil || x.last == nil {
		v.xrayPID, v.xray = pid, []string{"X-RAY  not available here (not on a live host, or not connected)"}
		return
	}
	if x.running {
		return
	}
	if x.done == nil {
		x.done = make(chan xrayDone, 1)
	}
	x.running = true
	v.xrayPID = pid
	v.xray = []string{fmt.Sprintf("X-RAY  pid %d: asking the server to log its memory contexts, then reading them back (up to 10 s)", pid)}
	s := x.last
	go func() { x.done <- xrayDone{pid, fn(ctx, s, pid)} }()
}

// finish shows a finished X-ray, unless another backend was chosen since.
func (x *xrayRunner) finish(v *view, d xrayDone) {
	x.running = false
	if v.xrayPID == d.pid {
		v.xray = d.lines
	}
}
