package watch

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/snapshot/sampler"
	"github.com/dbmem/dbmem/internal/xray"
)

// xrayRunner runs the X-ray the x key asks for, one at a time, off the
// loop that draws (a dump takes from milliseconds to seconds to appear in
// the server's log).
type xrayRunner struct {
	last    *sampler.Sample
	width   int
	running bool
	done    chan xrayDone
}

type xrayDone struct {
	pid    int
	result xray.Result
	lines  []string
}

// start runs the X-ray asked for, if any and none runs.
func (x *xrayRunner) start(ctx context.Context, fn func(context.Context, *sampler.Sample, int) xray.Result, v *view) {
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
	s, width := x.last, x.width
	go func() {
		r := fn(ctx, s, pid)
		x.done <- xrayDone{pid, r, xrayText(r, width)}
	}()
}

// finish shows a finished X-ray, unless another backend was chosen since.
func (x *xrayRunner) finish(v *view, d xrayDone) {
	x.running = false
	if v.xrayPID == d.pid {
		v.xray = d.lines
	}
}

func xrayText(r xray.Result, width int) []string {
	var b strings.Builder
	if err := xray.WriteText(&b, []xray.Result{r}, width); err != nil {
		return []string{"X-RAY  " + err.Error()}
	}
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}

// autoXRay X-rays each steadily growing backend at most every so often
// (Options.XRayGrowing), one per tick, and keeps the results in the
// Watcher for the next frames' causes.
type autoXRay struct {
	every time.Duration
	last  map[int]time.Time
}

func (a *autoXRay) run(ctx context.Context, fn func(context.Context, *sampler.Sample, int) xray.Result, w *Watcher, s *sampler.Sample, f Frame) {
	if a.every <= 0 {
		return
	}
	if a.last == nil {
		a.last = map[int]time.Time{}
	}
	for _, g := range f.Growing {
		if g.Kind != "backend" || f.At.Sub(a.last[g.PID]) < a.every {
			continue
		}
		a.last[g.PID] = f.At
		w.NoteXRay(fn(ctx, s, g.PID))
		return
	}
}
