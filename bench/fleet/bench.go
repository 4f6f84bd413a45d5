package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// benchMain runs the comparison. SIGINT, SIGTERM and SIGHUP end it early
// through the same clean-up as a normal end: readers closed, server
// stopped, huge page pool restored and checked, cluster removed.
// Further signals during the clean-up are caught and ignored.
func benchMain(args []string) error {
	cfg, err := parseConfig(args)
	if err != nil {
		return err
	}
	if os.Geteuid() != 0 {
		return errors.New("run as root: the fast path reads /proc/kpagecount, and the huge page pool is changed")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if cfg.MaxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.MaxTime)
		defer cancel()
	}
	b, err := newBench(ctx, cfg)
	if err != nil {
		return err
	}
	defer b.remove()
	if _, err := os.Stat(timeBin); err != nil {
		b.note("%s not found (apt-get install time): peak RSS not measured", timeBin)
	}
	for _, g := range cfg.groups() {
		if err := b.runGroup(ctx, g); err != nil {
			b.fail(g, err)
			if ctx.Err() != nil {
				break
			}
		}
		if err := b.write(); err != nil {
			return err
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		b.note("stopped after -max-time %s; configurations not listed above were not measured", cfg.MaxTime)
	}
	if err := b.write(); err != nil {
		return err
	}
	logf("wrote %s", cfg.Out)
	if ctx.Err() == nil && len(b.results) == 0 {
		return errors.New("nothing was measured (see the notes in " + cfg.Out + ")")
	}
	return ctx.Err()
}

// runGroup starts the server for one group and measures each number of
// backends in it. The huge page pool (huge_pages=on) is grown under the
// kernel-settings lock just before the start and restored after the stop.
func (b *bench) runGroup(ctx context.Context, g group) (err error) {
	if err := b.configure(ctx, g); err != nil {
		return err
	}
	pool, err := b.growPool(ctx, g)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, b.stopAndRestore(pool)) }()
	if err := b.start(ctx, g); err != nil {
		return err
	}
	for _, n := range g.Conns {
		pids, err := b.openReaders(ctx, g, n)
		if err != nil {
			return err
		}
		b.measure(ctx, g, n, pids)
		if err := b.write(); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// measure runs every tool reps times, interleaved (run 1 of each tool,
// then run 2 ...), so that the load of the other jobs on this machine
// weighs on all of them alike.
func (b *bench) measure(ctx context.Context, g group, n int, pids []int) {
	res := b.newResult(g, n, pids)
	t := target{PIDs: pids, Regex: b.backendRegex(), Self: b.self, DBMem: b.cfg.DBMem, Smem: b.cfg.Smem}
	tools := []tool{toolFast, toolPagemap, toolSmaps, toolStatus, toolPsmem, toolSmem}
	if b.cfg.reportAt(n) {
		tools = append(tools, reportTool("auto"), reportTool("smaps"), reportTool("status"))
	}
	res.Tools = make([]toolRun, len(tools))
	for i, tl := range tools {
		res.Tools[i].Tool = tl.Name
	}
	for rep := 0; rep < b.cfg.Reps && ctx.Err() == nil; rep++ {
		for i, tl := range tools {
			start := time.Now()
			if err := res.Tools[i].runOnce(ctx, tl, t); err != nil {
				logf("%s, %d backends: %s: %v", g.label(), n, tl.Name, err)
				continue
			}
			logf("%s, %d backends, run %d: %-28s %8.3fs", g.label(), n, rep+1, tl.Name, time.Since(start).Seconds())
		}
	}
	res.LoadEnd = loadAvg()
	res.Agreement = agree(res.Tools)
	b.results = append(b.results, res)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
