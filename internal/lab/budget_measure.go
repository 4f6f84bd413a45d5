package lab

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/measure"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/memcg"
	"github.com/dbmem/dbmem/internal/pagecost"
	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// privateSampler sums Pss_Anon + VmPTE (+ VmSwap) over the cgroup's
// processes (the cluster's, no one else's) every 250 ms, read by
// internal/pagecost's fast path (pagemap and kpagecount: smaps_rollup's
// Pss_Anon without walking the shared segment's page tables; smaps_rollup
// where it cannot).
type privateSampler struct {
	stop    chan struct{}
	done    chan struct{}
	samples []PrivateSample
}

func startSampler(fs linux.FS, g *memcg.Group) *privateSampler {
	s := &privateSampler{stop: make(chan struct{}), done: make(chan struct{})}
	start := time.Now()
	go func() {
		defer close(s.done)
		for {
			var sum uint64
			costs, _, _ := pagecost.Measure(fs, g.Procs(), pagecost.Options{Method: pagecost.MethodFast})
			for _, c := range costs {
				if v, ok := c.PrivateBytes(); ok {
					sum += v
				}
			}
			s.samples = append(s.samples, PrivateSample{Seconds: time.Since(start).Seconds(), PrivateBytes: sum})
			select {
			case <-s.stop:
				return
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	return s
}

// finish stops sampling and returns the peak, the samples' count and the
// samples.
func (s *privateSampler) finish() (peak uint64, samples []PrivateSample) {
	close(s.stop)
	<-s.done
	for _, x := range s.samples {
		peak = max(peak, x.PrivateBytes)
	}
	return peak, s.samples
}

// counters are what a run's figures are the growth of.
type counters struct {
	tempBytes, tempFiles int64
	statsOK              bool
	oomKills             *uint64
	logOffset            int64
}

func (r *budgetRun) counters(ctx context.Context) counters {
	c := counters{oomKills: r.g.Read().OOMKills, logOffset: fileSize(r.c.LogFile)}
	conn, err := r.c.Connect(ctx)
	if err != nil {
		return c
	}
	defer conn.Close(context.Background())
	err = conn.QueryRow(ctx, "SELECT sum(temp_bytes)::bigint, sum(temp_files)::bigint FROM pg_stat_database").Scan(&c.tempBytes, &c.tempFiles)
	c.statsOK = err == nil
	return c
}

// runConfig applies a configuration and runs the workload under it; with
// measure, dbmem's budget is computed during the run.
func (r *budgetRun) runConfig(ctx context.Context, cr *ConfigRun, measure bool) (err error) {
	r.res.Configs = append(r.res.Configs, cr)
	defer func() {
		if err != nil {
			cr.Error = inert.Text(err.Error())
		}
	}()
	r.steps.begin("configure "+cr.Name+" and restart", 0)
	if err := r.apply(ctx, cr); err != nil {
		return err
	}
	r.steps.begin("run the workload under "+cr.Name, 0)
	before := r.counters(ctx)
	r.g.ResetPeak()
	samp := startSampler(r.fs, r.g)
	start := time.Now()
	oltp, err := r.startOLTP(ctx)
	if err != nil {
		if oltp != nil {
			oltp.stop()
		}
		samp.finish()
		return err
	}
	rp := r.startReports(ctx)
	if measure {
		r.steps.begin("measure dbmem's budget during "+cr.Name, 0)
		err = r.measureBudget(ctx, rp)
		r.steps.begin("finish the workload under "+cr.Name, 0)
	}
	cr.Queries = rp.result()
	cr.OLTP = r.stopOLTP(ctx, oltp, start)
	peak, samples := samp.finish()
	cr.PeakPrivateBytes, cr.PrivateSamples, cr.Samples = &peak, len(samples), samples
	if err != nil {
		return err
	}
	return r.finishRun(ctx, cr, before)
}

// finishRun reads the growth of the counters once the statistics are
// flushed (a backend flushes its own at exit, at most a second late).
func (r *budgetRun) finishRun(ctx context.Context, cr *ConfigRun, before counters) error {
	if err := sleep(ctx, 1500*time.Millisecond); err != nil {
		return err
	}
	after := r.counters(ctx)
	cr.CgroupPeakBytes = r.g.Read().PeakBytes
	if before.statsOK && after.statsOK && after.tempBytes >= before.tempBytes {
		b, f := uint64(after.tempBytes-before.tempBytes), uint64(max(after.tempFiles-before.tempFiles, 0))
		cr.TempBytes, cr.TempFiles = &b, &f
	} else {
		r.res.Notes = append(r.res.Notes, cr.Name+": pg_stat_database's temp bytes unknown (unreadable, or reset by a crash restart)")
	}
	if before.oomKills != nil && after.oomKills != nil {
		k := *after.oomKills - min(*after.oomKills, *before.oomKills)
		cr.OOMKills = &k
	}
	text, err := serverLogSince(r.c.LogFile, before.logOffset)
	if err != nil {
		return err
	}
	cr.OutOfMemoryErrors = strings.Count(text, "out of memory")
	cr.ServerLog = eventLines(text)
	if len(cr.ServerLog) > 20 {
		cr.ServerLog = cr.ServerLog[:20]
	}
	return nil
}

// measureBudget waits until every reporting query has completed once
// (its spills are in pg_stat_statements and the server log) while the
// workload still runs, then plans the cluster as `dbmem plan` does:
// snapshot, plan.Build (Measure), advise.Plan (the budget).
func (r *budgetRun) measureBudget(ctx context.Context, rp *reports) error {
	for !rp.everyQueryDone() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-rp.done:
			r.res.Notes = append(r.res.Notes, "the reporting sessions ended before every query had completed once: the budget was measured after them")
			return r.planBudget(ctx)
		case <-time.After(200 * time.Millisecond):
		}
	}
	return r.planBudget(ctx)
}

func (r *budgetRun) planBudget(ctx context.Context) error {
	o := snapshot.Options{FS: r.fs, Method: measure.Smaps,
		Live: postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Port: r.c.Port, Work: true}}}
	s, err := snapshot.Take(ctx, o)
	if err != nil {
		return fmt.Errorf("snapshot for dbmem's budget: %w", err)
	}
	in, err := plan.Build(ctx, plan.Request{Snapshot: s, Port: r.c.Port, FS: r.fs, Budget: plan.BudgetOptions{Profile: r.cfg.Profile}})
	if err != nil {
		return fmt.Errorf("plan for dbmem's budget: %w", err)
	}
	p := advise.Plan(in)
	if p.Budget == nil {
		return errors.New("dbmem plan made no budget for the lab's cluster: " + strings.Join(p.Notes, "; "))
	}
	r.res.Budget = p.Budget
	return nil
}
