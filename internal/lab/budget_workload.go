package lab

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/throwaway"
)

// startOLTP starts pgbench's select-only script (one primary-key lookup
// per transaction) with the OLTP role's clients, reporting every second;
// it runs until stopOLTP, as long as the reports.
func (r *budgetRun) startOLTP(ctx context.Context) (*bench, error) {
	cred, err := throwaway.Credential("postgres")
	if err != nil {
		return nil, err
	}
	b, err := startBenchAs(ctx, r.c, cred, OLTPRole, r.cfg.OLTPClients, 3600, "-S")
	if err != nil {
		return nil, err
	}
	return b, b.waitSamples(ctx, 1, 2*time.Minute)
}

// stopOLTP ends pgbench once it ran at least the run's time, and sums its
// reports: the transactions, their rate, the clients it said aborted.
func (r *budgetRun) stopOLTP(ctx context.Context, b *bench, start time.Time) OLTPRun {
	sleep(ctx, time.Until(start.Add(time.Duration(r.cfg.RunSeconds*float64(time.Second)))))
	b.stop()
	o := OLTPRun{Clients: r.cfg.OLTPClients, Failed: int64(b.Aborted())}
	ss := b.Samples()
	for _, s := range ss {
		o.Transactions += int64(s.TPS)
	}
	if len(ss) > 0 {
		o.TPS = float64(o.Transactions) / float64(len(ss))
	}
	if t := b.errText(); t != "" && (o.Failed > 0 || len(ss) == 0) {
		o.Error = "pgbench: " + t
	}
	return o
}

// reports are the reporting role's sessions, each running every query
// Rounds times, starting at a different one.
type reports struct {
	mu    sync.Mutex
	stats []QueryStats
	total []float64
	wg    sync.WaitGroup
	done  chan struct{}
}

func (r *budgetRun) startReports(ctx context.Context) *reports {
	qs := r.cfg.Queries
	rp := &reports{stats: make([]QueryStats, len(qs)), total: make([]float64, len(qs)), done: make(chan struct{})}
	for i, q := range qs {
		rp.stats[i].Name = q.Name
	}
	for s := 0; s < r.cfg.Reporters; s++ {
		rp.wg.Add(1)
		go func(s int) {
			defer rp.wg.Done()
			r.report(ctx, rp, s)
		}(s)
	}
	go func() { rp.wg.Wait(); close(rp.done) }()
	return rp
}

// report is one reporting session: it reconnects after an error (a
// server restarted after an OOM kill) and goes on with the next query.
func (r *budgetRun) report(ctx context.Context, rp *reports, s int) {
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	qs := r.cfg.Queries
	for k := 0; k < r.cfg.Rounds*len(qs) && ctx.Err() == nil; k++ {
		i := (s + k) % len(qs)
		if conn == nil {
			c, err := pgx.Connect(ctx, fmt.Sprintf("host=%s port=%d user=%s dbname=postgres connect_timeout=30", r.c.SocketDir, r.c.Port, ReportRole))
			if err != nil {
				rp.add(i, 0, err)
				time.Sleep(time.Second)
				continue
			}
			conn = c
		}
		start := time.Now()
		_, err := conn.Exec(ctx, qs[i].SQL)
		rp.add(i, time.Since(start).Seconds(), err)
		if err != nil {
			conn.Close(context.Background())
			conn = nil
		}
	}
}

func (rp *reports) add(i int, secs float64, err error) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	q := &rp.stats[i]
	if err != nil {
		q.Failed++
		if q.FirstError == "" {
			q.FirstError = inert.Text(err.Error())
		}
		return
	}
	q.Completed++
	rp.total[i] += secs
	q.MeanSeconds = rp.total[i] / float64(q.Completed)
	q.MaxSeconds = max(q.MaxSeconds, secs)
}

// everyQueryDone reports whether each query completed once.
func (rp *reports) everyQueryDone() bool {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	for _, q := range rp.stats {
		if q.Completed == 0 {
			return false
		}
	}
	return true
}

func (rp *reports) result() []QueryStats {
	<-rp.done
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return append([]QueryStats(nil), rp.stats...)
}
