package exporter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// Metrics of the reads' deadlines (sent when the sampler's FS has them)
// and of collectors that ran out of time.
var (
	descReadTimeouts = desc("read_timeouts_total", "Reads of /proc, /sys and host files abandoned because they did not finish within the read deadline (a FIFO, a process holding its mmap lock): the process, or the file, is skipped while the read hangs.")
	descReadsStuck   = desc("reads_stuck", "Reads abandoned that still hang now (each stands for a process or a file left out of the scrapes).")
	descColTimeouts  = desc("scrape_collector_timeouts_total", "Scrapes that a collector did not finish within the scrape timeout: they were served without it, and no second collection started while it ran.", "collector")
)

// errCollectTimeout is a sample that did not finish within ScrapeTimeout.
var errCollectTimeout = errors.New("collection did not finish in time")

// flight is the one Status sample being read; every scrape that comes while
// it runs waits for it (never starts another), each up to ScrapeTimeout.
type flight struct {
	done chan struct{}
	s    *sampler.Sample
	err  error
}

// sample returns a Status sample, or errCollectTimeout after ScrapeTimeout
// (the sample goes on in the background, bounded by the read deadlines;
// the next scrape waits for it instead of starting another).
func (e *Exporter) sample() (*sampler.Sample, error) {
	e.mu.Lock()
	f := e.flight
	if f == nil {
		f = &flight{done: make(chan struct{})}
		e.flight = f
		go e.fly(f)
	}
	e.mu.Unlock()
	t := time.NewTimer(e.o.ScrapeTimeout)
	defer t.Stop()
	select {
	case <-f.done:
		return f.s, f.err
	case <-t.C:
	}
	e.mu.Lock()
	e.colTimeouts++
	e.mu.Unlock()
	e.log().Error("the status collector did not finish within the scrape timeout: served without it",
		"timeout", e.o.ScrapeTimeout, "stuck_reads", stuckPaths(e.o.Sampler.FS.Deadlines))
	return nil, fmt.Errorf("%w (%s)", errCollectTimeout, e.o.ScrapeTimeout)
}

func (e *Exporter) fly(f *flight) {
	ctx, cancel := context.WithTimeout(context.Background(), e.o.ScrapeTimeout)
	defer cancel()
	f.s, f.err = e.o.Sampler.Sample(ctx, sampler.Status)
	e.mu.Lock()
	e.flight = nil
	e.mu.Unlock()
	close(f.done)
}

// collectDeadlines sends the deadline metrics when the sampler's reads have
// deadlines (the exporter command always sets them; fixtures do not).
func (e *Exporter) collectDeadlines(out *sink) {
	d := e.o.Sampler.FS.Deadlines
	if d == nil {
		return
	}
	e.mu.Lock()
	n := e.colTimeouts
	e.mu.Unlock()
	out.counter(descColTimeouts, float64(n), "status")
	out.counter(descReadTimeouts, float64(d.Timeouts()))
	out.gauge(descReadsStuck, float64(len(d.Stuck())))
}

func stuckPaths(d *linux.Deadlines) []string {
	if d == nil {
		return nil
	}
	var out []string
	for _, s := range d.Stuck() {
		out = append(out, s.Path)
	}
	return out
}
