package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/growth"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
	"github.com/dbmem/dbmem/internal/xray"
)

// Options drive Run.
type Options struct {
	// Interval between ticks (default 2s).
	Interval time.Duration
	// SmapsEvery is how often to read smaps_rollup for exact private cost;
	// 0 never does. The first pass is on the second tick, so the view
	// appears at once.
	SmapsEvery time.Duration
	// Count stops after this many ticks; 0 runs until ctx is cancelled.
	Count int
	// Top is the length of the top lists (default 5).
	Top int
	Out io.Writer
	// Screen redraws a full terminal screen (ANSI) in place; otherwise each
	// tick prints one block.
	Screen bool
	// JSON prints one Frame per line instead of text.
	JSON   bool
	Render RenderOptions
	// Size returns the terminal's width and height (nil: no limits).
	Size func() (width, height int)
	// Keys, with Screen, is the terminal in raw mode: each byte read is a
	// key (keys.go). The caller sets and restores raw mode.
	Keys io.Reader
	// OnFrame, when set, sees every sample and frame (recording).
	OnFrame func(*sampler.Sample, Frame) error
	// Backends is how many lines of the per-backend view to show (0:
	// none; on a terminal, what the height leaves, at least 5).
	Backends int
	// XRay, when set, X-rays a backend (the x key, XRayGrowing): it gets
	// the last sample and the backend's PID.
	XRay func(ctx context.Context, s *sampler.Sample, pid int) xray.Result
	// XRayGrowing, when set with XRay, X-rays each steadily growing
	// backend at most this often: two X-rays tell a leak from cache growth.
	XRayGrowing time.Duration
	// Growth says what counts as sustained growth (growth.Options).
	Growth growth.Options
}

// rediscoverEvery is how often instances and settings are read again when
// no smaps pass does it. A discovery connects to every instance and scans
// every process's maps for SysV segments: about a second of CPU on a host
// with 500 backends, so not every minute. Instances that start or stop are
// noticed on the next tick anyway.
const rediscoverEvery = 5 * time.Minute

// Run samples every Interval and shows each frame until ctx is cancelled
// or Count ticks have been shown.
func Run(ctx context.Context, s *sampler.Sampler, o Options) error {
	if o.Interval <= 0 {
		o.Interval = 2 * time.Second
	}
	w := &Watcher{Top: o.Top, Growth: o.Growth}
	if o.Screen && !o.JSON {
		io.WriteString(o.Out, "\x1b[?1049h\x1b[?25l")
		defer io.WriteString(o.Out, "\x1b[?25h\x1b[?1049l")
	}
	var keys chan byte
	if o.Screen && !o.JSON && o.Keys != nil {
		keys = make(chan byte, 16)
		go readKeys(o.Keys, keys)
	}
	v := &view{interval: o.Interval, keys: keys != nil}
	ticker := time.NewTicker(o.Interval)
	defer ticker.Stop()
	sched := schedule{smapsEvery: o.SmapsEvery}
	xr := &xrayRunner{width: o.Render.Width}
	auto := autoXRay{every: o.XRayGrowing}
	for tick := 1; ; tick++ {
		f, smp, err := o.tick(ctx, s, w, &sched, tick)
		xr.last = smp
		if err == nil && o.XRay != nil {
			auto.run(ctx, o.XRay, w, smp, f)
		}
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		if err := o.show(f, *v); err != nil {
			return err
		}
		if o.Count > 0 && tick >= o.Count {
			return nil
		}
		if quit, err := o.wait(ctx, ticker, keys, v, f, xr, w); quit || err != nil {
			return err
		}
	}
}

// tick samples once and makes the frame.
func (o Options) tick(ctx context.Context, s *sampler.Sampler, w *Watcher, sched *schedule, tick int) (Frame, *sampler.Sample, error) {
	smp, err := sampleUntil(ctx, s, sched.next(tick, s.Time()))
	if err != nil {
		return Frame{}, nil, err
	}
	sched.done(smp)
	f := w.Frame(smp)
	if o.OnFrame != nil {
		err = o.OnFrame(smp, f)
	}
	return f, smp, err
}

// wait returns when the next tick is due (not while paused), or with quit
// set when the user quits or ctx ends. A key redraws the last frame.
func (o Options) wait(ctx context.Context, ticker *time.Ticker, keys <-chan byte, v *view, last Frame, xr *xrayRunner, w *Watcher) (bool, error) {
	for {
		select {
		case <-ctx.Done():
			return true, nil
		case <-ticker.C:
			if !v.paused {
				return false, nil
			}
		case done := <-xr.done:
			xr.finish(v, done)
			w.NoteXRay(done.result)
			if err := o.show(last, *v); err != nil {
				return true, err
			}
		case k, ok := <-keys:
			if !ok {
				keys = nil // the terminal is gone: go on without keys
				continue
			}
			before := v.interval
			if !v.pressBackend(k, last) && v.press(k) {
				return true, nil
			}
			if v.interval != before {
				ticker.Reset(v.interval)
			}
			xr.start(ctx, o.XRay, v)
			if err := o.show(last, *v); err != nil {
				return true, err
			}
		}
	}
}

// schedule decides each tick's Mode.
type schedule struct {
	smapsEvery              time.Duration
	lastSmaps, lastDiscover time.Time
}

func (c *schedule) next(tick int, now time.Time) sampler.Mode {
	if c.smapsEvery > 0 && tick > 1 && (c.lastSmaps.IsZero() || now.Sub(c.lastSmaps) >= c.smapsEvery) {
		return sampler.Smaps
	}
	if tick > 1 && now.Sub(c.lastDiscover) >= rediscoverEvery {
		return sampler.Discover
	}
	return sampler.Status
}

func (c *schedule) done(s *sampler.Sample) {
	if s.Mode >= sampler.Discover {
		c.lastDiscover = s.Snapshot.TakenAt
	}
	if s.Mode == sampler.Smaps {
		c.lastSmaps = s.Snapshot.TakenAt
	}
}

func (o Options) show(f Frame, v view) error {
	if o.JSON {
		b, err := json.Marshal(f)
		if err != nil {
			return fmt.Errorf("encode frame: %w", err)
		}
		_, err = o.Out.Write(append(b, '\n'))
		return err
	}
	ro := o.Render
	if v.keys {
		ro.Status, ro.Sort = v.status(), sortKeys[v.sort]
		if v.help {
			ro.Help = v.helpLines()
		}
	}
	height := 0
	if o.Size != nil {
		ro.Width, height = o.Size()
	}
	ro.Backends, ro.Selected, ro.XRay = o.Backends, v.selected, v.xray
	if v.keys && height > 0 {
		ro.Backends = max(5, height/4)
	}
	if v.hidden {
		ro.Backends = 0
	}
	var buf bytes.Buffer
	if err := Render(&buf, f, ro); err != nil {
		return err
	}
	if !o.Screen {
		if f.Tick > 1 {
			io.WriteString(o.Out, "\n")
		}
		_, err := o.Out.Write(buf.Bytes())
		return err
	}
	return redraw(o.Out, inert.Output(buf.String(), ro.Color), height) // the screen gets no foreign control bytes
}

// redraw paints text from the top-left corner, clearing what each line
// and the rest of the screen held before, cut to height lines.
func redraw(w io.Writer, text string, height int) error {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if height > 1 && len(lines) > height-1 {
		lines = lines[:height-1]
	}
	_, err := io.WriteString(w, "\x1b[H"+strings.Join(lines, "\x1b[K\r\n")+"\x1b[K\r\n\x1b[J")
	return err
}
