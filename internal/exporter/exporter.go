package exporter

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// Options configure an Exporter.
type Options struct {
	Sampler *sampler.Sampler
	// Top is how many of the host's processes dbmem_process_oom_score
	// lists (default 5).
	Top int
	// ScrapeTimeout bounds one scrape's reading (default 30s): a scrape
	// that waits longer is served without the status collector.
	ScrapeTimeout time.Duration
	// Logger gets collector timeouts and dropped metrics (default
	// slog.Default()).
	Logger *slog.Logger
	// Version is dbmem_build_info's version label.
	Version string
}

// Exporter is a prometheus.Collector. Each Collect reads a Status sample;
// RefreshSmaps (run by RunSmaps in the background) reads Pss.
type Exporter struct {
	o Options

	mu          sync.Mutex
	smaps       smapsResult
	flight      *flight // the Status sample being read (deadline.go)
	colTimeouts uint64
}

// smapsResult is the outcome of the last smaps pass.
type smapsResult struct {
	done bool
	ok   bool
	at   time.Time
	cost sampler.Cost
	// private is by postmaster (or MySQL server) PID, then role ("" for a
	// MySQL server): Pss_Anon + VmPTE + VmSwap.
	private map[int]map[string]uint64
}

// New returns an exporter reading through o.Sampler.
func New(o Options) *Exporter {
	if o.Top <= 0 {
		o.Top = 5
	}
	if o.ScrapeTimeout <= 0 {
		o.ScrapeTimeout = 30 * time.Second
	}
	return &Exporter{o: o}
}

// Describe sends every metric's description.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
	for _, d := range []*prometheus.Desc{descReadTimeouts, descReadsStuck, descColTimeouts} {
		ch <- d
	}
}

func (e *Exporter) log() *slog.Logger {
	if e.o.Logger != nil {
		return e.o.Logger
	}
	return slog.Default()
}

// Collect reads a Status sample and sends the metrics.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	t0 := time.Now()
	s, err := e.sample()
	dur := time.Since(t0)
	ok := err == nil
	out := newSink(ch, e.log())
	if ok {
		pss := e.lastSmaps()
		collectHost(out, s)
		boot, _ := linux.BootTime(e.o.Sampler.FS) // ages unknown without it: no long-lived series
		collectPostgres(out, s, pss, boot)
		collectMySQL(out, s, pss)
		collectOOM(out, s, e.o.Top)
		if e.o.Sampler.Check != nil {
			collectFindings(out, s)
		}
	}
	var cpu time.Duration
	if s != nil {
		cpu = s.Cost.CPU
	}
	out.gauge(descColDur, dur.Seconds(), "status")
	out.gauge(descColCPU, cpu.Seconds(), "status")
	out.gauge(descColOK, b2f(ok), "status")
	e.collectSmapsMeta(out)
	e.collectDeadlines(out)
	collectBuildInfo(out, e.o.Version)
}

// RefreshSmaps runs one smaps pass now and keeps its private costs.
func (e *Exporter) RefreshSmaps(ctx context.Context) error {
	s, err := e.o.Sampler.Sample(ctx, sampler.Smaps)
	r := smapsResult{done: true, ok: err == nil}
	if err == nil {
		var read, tried int
		r.at, r.cost = s.Snapshot.TakenAt, s.Cost
		r.private, read, tried = pssByRole(s)
		if tried > 0 && read == 0 {
			// Every smaps_rollup read failed (not root: permission denied):
			// not a success, and no Pss figures.
			r.ok, r.private = false, nil
			err = fmt.Errorf("smaps pass: Pss_Anon of none of %d database processes could be read (%s)", tried, firstGap(s))
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		r.at, r.cost, r.private = e.smaps.at, e.smaps.cost, e.smaps.private
	}
	e.smaps = r
	return err
}

// RunSmaps calls RefreshSmaps now and then every interval until ctx ends.
// A pass that has not ended when the next is due (or after a minute, for
// intervals under one) is abandoned: its reads stop. Errors go to report
// (nil: dropped); they also show as dbmem_smaps_success 0.
func (e *Exporter) RunSmaps(ctx context.Context, every time.Duration, report func(error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		pass, cancel := context.WithTimeout(ctx, max(every, time.Minute))
		err := e.RefreshSmaps(pass)
		cancel()
		if err != nil && report != nil && ctx.Err() == nil {
			report(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// firstGap names the first thing the sample could not read.
func firstGap(s *sampler.Sample) string {
	for _, in := range s.Snapshot.Postgres {
		for _, g := range in.Gaps {
			return g.String()
		}
	}
	if len(s.Snapshot.Gaps) > 0 {
		return s.Snapshot.Gaps[0].String()
	}
	return "no reason given"
}

func (e *Exporter) lastSmaps() smapsResult {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.smaps
}

func (e *Exporter) collectSmapsMeta(out *sink) {
	r := e.lastSmaps()
	if !r.done {
		return
	}
	out.gauge(descSmapsOK, b2f(r.ok))
	if !r.at.IsZero() {
		out.gauge(descSmapsTS, float64(r.at.UnixNano())/1e9)
		out.gauge(descSmapsDur, r.cost.Wall.Seconds())
		out.gauge(descSmapsCPU, r.cost.CPU.Seconds())
	}
}
