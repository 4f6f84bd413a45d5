package lab

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/units"
)

// strictGuard sets vm.overcommit_memory=2 for real around the protected
// run's query, journaled first, and puts it back as soon as the query
// ends (and again, if needed, in cleanup and by --restore).
type strictGuard struct {
	fs       linux.FS
	budget   uint64
	headroom uint64
	armed    bool
	set      []hostchange.Kernel
	watch    *commitWatcher
	run      *OOMRun
}

// overcommitInput reads what planStrict decides from.
func overcommitInput(fs linux.FS, committedMax uint64) (StrictInput, error) {
	m, err := meminfo(fs, "MemTotal", "MemAvailable", "SwapTotal", "Committed_AS")
	if err != nil {
		return StrictInput{}, err
	}
	huge := linux.ParseKV(mustRead(fs, fs.ProcPath("meminfo")), "Hugetlb")["Hugetlb"]
	in := StrictInput{MemTotalBytes: m["MemTotal"], MemAvailableBytes: m["MemAvailable"], SwapBytes: m["SwapTotal"],
		HugetlbBytes: huge, CommittedMaxBytes: max(committedMax, m["Committed_AS"])}
	for name, dst := range map[string]*string{"vm.overcommit_memory": &in.Mode, "vm.overcommit_ratio": &in.Ratio, "vm.overcommit_kbytes": &in.KBytes} {
		if *dst, err = linux.ReadSysctl(fs, name); err != nil {
			return in, err
		}
	}
	return in, nil
}

func mustRead(fs linux.FS, p string) []byte {
	b, _ := fs.ReadFile(p)
	return b
}

// precheckStrict refuses early, before anything is created, on a host
// where strict overcommit cannot be proved safe.
func (r *oomRun) precheckStrict() error {
	in, err := overcommitInput(r.fs, 0)
	if err != nil {
		return err
	}
	in.Others = othersThan(r.fs, 0)
	in.HeadroomBytes, in.BudgetBytes = r.cfg.HeadroomBytes, r.cfg.LimitBytes*4/5
	p := planStrict(in)
	if !p.Safe() {
		return refusal(p)
	}
	return nil
}

func refusal(p StrictPlan) error {
	return fmt.Errorf("--strict-overcommit refused, nothing was changed: %s. Run without --strict-overcommit: the lab then emulates it for its own cluster only",
		strings.Join(p.Refusals, "; "))
}

// prepareStrict starts the cluster without an address-space limit and
// raises the cgroup's limit so that the query can reach CommitLimit
// before the cgroup's OOM killer acts: it may eat the headroom too.
func (r *oomRun) prepareStrict(ctx context.Context, p *Protection) error {
	p.Real, p.Method, p.Differs = true, "vm.overcommit_memory=2 on the host, for the query's duration", nil
	if err := r.start(ctx, 0); err != nil {
		return err
	}
	if err := r.g.SetLimit(r.cfg.LimitBytes + r.cfg.HeadroomBytes); err != nil {
		return err
	}
	r.strict = &strictGuard{fs: r.fs, budget: p.BudgetBytes, headroom: r.cfg.HeadroomBytes}
	return nil
}

// arm samples Committed_AS with the load running, proves the plan safe
// and sets it, journaled first.
func (g *strictGuard) arm(ctx context.Context, r *oomRun, run *OOMRun) error {
	peak, err := sampleCommitted(ctx, g.fs, 3*time.Second)
	if err != nil {
		return err
	}
	in, err := overcommitInput(g.fs, peak)
	if err != nil {
		return err
	}
	in.Others = othersThan(g.fs, r.c.PID)
	in.HeadroomBytes, in.BudgetBytes = g.headroom, g.budget
	p := planStrict(in)
	r.res.Protection.Strict = &p
	if !p.Safe() {
		return refusal(p)
	}
	g.run = run
	return g.apply(r, p)
}

// apply journals and writes vm.overcommit_ratio, then vm.overcommit_memory.
func (g *strictGuard) apply(r *oomRun, p StrictPlan) error {
	g.set = []hostchange.Kernel{{Setting: hostchange.Sysctl("vm.overcommit_ratio"), Before: p.RatioBefore, Set: strconv.Itoa(p.Ratio)},
		{Setting: hostchange.Sysctl("vm.overcommit_memory"), Before: p.ModeBefore, Set: "2"}}
	for i := range g.set {
		r.jr.Entries = append(r.jr.Entries, hostchange.Entry{Kernel: &g.set[i]})
	}
	if err := r.jr.Save(); err != nil {
		return err
	}
	g.armed = true
	g.watch = watchCommit(g.fs, g.headroom)
	for _, c := range g.set {
		got, err := hostchange.Write(c.Path(g.fs), c.Set)
		if err == nil && got != c.Set {
			err = fmt.Errorf("the kernel reads back %s", got)
		}
		if err != nil {
			return fmt.Errorf("set %s to %s: %w", c.Setting, c.Set, err)
		}
	}
	return nil
}

// disarm puts vm.overcommit_memory back first, then the ratio; it may be
// called again.
func (g *strictGuard) disarm() error {
	if g == nil || !g.armed {
		return nil
	}
	g.armed = false
	var errs []error
	for i := len(g.set) - 1; i >= 0; i-- {
		if x := g.set[i].Undo(g.fs); !x.OK {
			errs = append(errs, fmt.Errorf("restore %s: %s", x.What, x.Error))
		}
	}
	if g.run != nil {
		g.run.Commit = g.watch.stop()
	}
	return errors.Join(errs...)
}

// sampleCommitted returns the highest Committed_AS read every 100 ms for d.
func sampleCommitted(ctx context.Context, fs linux.FS, d time.Duration) (uint64, error) {
	var peak uint64
	for end := time.Now().Add(d); time.Now().Before(end); {
		m, err := meminfo(fs, "Committed_AS")
		if err != nil {
			return 0, err
		}
		peak = max(peak, m["Committed_AS"])
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return 0, err
		}
	}
	return peak, nil
}

// commitWatcher samples CommitLimit - Committed_AS every 10 ms.
type commitWatcher struct {
	mu       sync.Mutex
	w        CommitWatch
	headroom uint64
	start    time.Time
	done     chan struct{}
	stopped  chan struct{}
}

func watchCommit(fs linux.FS, headroom uint64) *commitWatcher {
	w := &commitWatcher{headroom: headroom, start: time.Now(), done: make(chan struct{}), stopped: make(chan struct{})}
	w.w.MinGapBytes = int64(^uint64(0) >> 1)
	go w.loop(fs)
	return w
}

func (w *commitWatcher) loop(fs linux.FS) {
	defer close(w.stopped)
	last := time.Now()
	for {
		if m, err := meminfo(fs, "CommitLimit", "Committed_AS"); err == nil {
			gap := int64(m["CommitLimit"]) - int64(m["Committed_AS"])
			w.mu.Lock()
			w.w.Samples++
			w.w.MinGapBytes = min(w.w.MinGapBytes, gap)
			if gap < int64(w.headroom) {
				w.w.BelowHeadroom += time.Since(last)
			}
			w.mu.Unlock()
		}
		last = time.Now()
		select {
		case <-w.done:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (w *commitWatcher) stop() *CommitWatch {
	close(w.done)
	<-w.stopped
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.w
	out.On = time.Since(w.start)
	return &out
}

// strictSummary is one line about the real setting's headroom.
func strictSummary(c *CommitWatch, headroom uint64) string {
	return fmt.Sprintf("strict overcommit was on for %s; the host's commit headroom fell to %s (%s below the %s kept for everything else)",
		c.On.Round(time.Millisecond), units.Bytes(uint64(max(0, c.MinGapBytes))), c.BelowHeadroom.Round(time.Millisecond), units.Bytes(headroom))
}
