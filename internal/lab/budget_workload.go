package lab

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/throwaway"
)

// oltpLoad is pgbench's select-only script as the OLTP role, in the
// background.
type oltpLoad struct {
	done chan struct{}
	out  []byte
	err  error
}

// startOLTP starts pgbench (-S: one primary-key lookup per transaction)
// with the OLTP role's clients for the run's time.
func (r *budgetRun) startOLTP(ctx context.Context) (*oltpLoad, error) {
	c := r.c
	if err := pgcluster.CheckBin(c.Bin, "pgbench"); err != nil {
		return nil, err
	}
	args := []string{"-n", "-S", "-c", strconv.Itoa(r.cfg.OLTPClients), "-j", "2", "-T", strconv.Itoa(int(r.cfg.RunSeconds)),
		"-h", c.SocketDir, "-p", strconv.Itoa(c.Port), "-U", OLTPRole, "postgres"}
	cmd := exec.CommandContext(ctx, filepath.Join(c.Bin, "pgbench"), args...)
	cmd.Dir, cmd.Env = c.Dir, pgcluster.Env()
	cred, err := throwaway.Credential("postgres")
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	l := &oltpLoad{done: make(chan struct{})}
	go func() {
		l.out, l.err = cmd.CombinedOutput()
		close(l.done)
	}()
	return l, nil
}

// result waits for pgbench and reads its summary.
func (l *oltpLoad) result(clients int) OLTPRun {
	<-l.done
	o := OLTPRun{Clients: clients}
	p, err := pgcluster.ParsePgbench(string(l.out))
	if err == nil {
		o.Transactions, o.Failed, o.TPS = p.Transactions, p.Failed, p.TPS
	}
	if l.err != nil || err != nil {
		o.Error = inert.Text(fmt.Sprintf("pgbench: %v %v: %s", l.err, err, lastLine(string(l.out))))
	}
	return o
}

func lastLine(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == ' ') {
		s = s[:len(s)-1]
	}
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return s[i+1:]
		}
	}
	return s
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
