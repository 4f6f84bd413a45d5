package lab

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// queryLimit bounds the runaway query: it meets the limit in seconds.
const queryLimit = 3 * time.Minute

// scenario runs pgbench, then the runaway query, then pgbench again, and
// explains the event with the post-mortem.
func (r *oomRun) scenario(ctx context.Context, name string) (*OOMRun, error) {
	run := &OOMRun{Name: name}
	r.steps.begin(name+": pgbench, then the runaway sort", 0)
	defer r.steps.end()
	logOff, kills := fileSize(r.c.LogFile), r.g.Read().OOMKills
	r.g.ResetPeak()
	ld, err := r.startLoad(ctx, name == "unprotected")
	defer ld.stop()
	if err != nil {
		return run, err
	}
	mark, err := markKernelLog(name)
	if err != nil {
		return run, err
	}
	q, err := r.openRunaway(ctx)
	if err != nil {
		return run, err
	}
	defer closeAll([]session{q})
	if err := r.query(ctx, q, run); err != nil {
		return run, err
	}
	if name == "unprotected" && run.Outcome != OutcomeKilled {
		return run, fmt.Errorf("the runaway query was not killed: %s %s (lower --limit or raise --rows)", run.Outcome, run.QueryError)
	}
	if run.Outcome == OutcomeKilled {
		err = r.afterKill(ctx, run, ld.b, mark)
	} else {
		err = r.afterError(ctx, run, ld.b, q)
	}
	r.account(run, ld.b, ld.idle, kills)
	if err == nil {
		err = r.explain(ctx, run, mark, logOff)
	}
	return run, err
}

// load is the idle sessions and pgbench running before the query.
type load struct {
	idle []session
	b    *bench
}

func (l *load) stop() {
	if l.b != nil {
		l.b.stop()
	}
	closeAll(l.idle)
}

// startLoad opens the idle sessions, starts pgbench and lets it run for
// --before; measure reads the cluster's commit meanwhile.
func (r *oomRun) startLoad(ctx context.Context, measure bool) (*load, error) {
	ld := &load{}
	var err error
	if ld.idle, err = r.openIdle(ctx); err != nil {
		return ld, err
	}
	if ld.b, err = startBench(ctx, r.c, r.cred, r.cfg.Clients, r.benchSeconds()); err != nil {
		return ld, err
	}
	limit := time.Minute + time.Duration(2*r.cfg.BeforeSeconds)*time.Second
	if err := ld.b.waitSamples(ctx, int(r.cfg.BeforeSeconds), limit); err != nil {
		return ld, err
	}
	if measure && len(ld.idle) > 0 {
		r.measureBaseline(ld.idle[0].pid)
	}
	return ld, nil
}

// benchSeconds is pgbench's -T: long enough for the query and the time
// after it; the lab stops it sooner.
func (r *oomRun) benchSeconds() int {
	return int(r.cfg.BeforeSeconds+r.cfg.AfterSeconds+queryLimit.Seconds()) + 30
}

// query runs the runaway query, watching its backend and the cgroup;
// with strict overcommit for real, the setting is on for its duration only.
func (r *oomRun) query(ctx context.Context, q session, run *OOMRun) error {
	run.QueryPID = q.pid
	wctx, stopWatch := context.WithCancel(ctx)
	gone, mem := make(chan time.Time, 1), make(chan []MemSample, 1)
	go watchGone(wctx, q.pid, gone)
	go r.sampleMemory(wctx, q.pid, mem)
	defer func() { stopWatch(); run.Memory = <-mem }()
	if r.strict != nil {
		if err := r.strict.arm(ctx, r, run); err != nil {
			return err
		}
	}
	timedOut, err := r.exec(ctx, q, run)
	if r.strict != nil {
		r.strict.disarm()
	}
	run.Outcome, run.QueryError = classify(err, timedOut)
	if run.Outcome == OutcomeKilled {
		select {
		case t := <-gone:
			run.GoneAt = &t
		case <-time.After(10 * time.Second):
			run.Outcome = "connection lost, backend still running: " + run.QueryError
		}
	}
	return ctx.Err()
}

// exec runs the query, at most queryLimit.
func (r *oomRun) exec(ctx context.Context, q session, run *OOMRun) (timedOut bool, err error) {
	qctx, cancel := context.WithTimeout(ctx, queryLimit)
	defer cancel()
	run.QueryStart = time.Now()
	_, err = q.conn.Exec(qctx, r.cfg.Query)
	run.QueryEnd = time.Now()
	return qctx.Err() != nil, err
}

// afterKill waits for the server to come back, reads the kernel's kill
// report, and measures TPS after with a new pgbench run.
func (r *oomRun) afterKill(ctx context.Context, run *OOMRun, b *bench, mark kmsgMarker) error {
	ready, err := r.waitReady(ctx, 2*time.Minute)
	if err != nil {
		return err
	}
	run.ReadyAt = &ready
	if !b.wait(30 * time.Second) {
		b.stop()
	}
	if _, err := mark.waitKill(ctx, run.QueryPID, 30*time.Second); err != nil {
		return err
	}
	b2, err := startBench(ctx, r.c, r.cred, r.cfg.Clients, int(r.cfg.AfterSeconds))
	if err != nil {
		return err
	}
	if !b2.wait(time.Duration(r.cfg.AfterSeconds)*time.Second + time.Minute) {
		b2.stop()
	}
	after := b2.Samples()
	ss := append(b.Samples(), after...)
	sort.Slice(ss, func(i, j int) bool { return ss[i].At.Before(ss[j].At) })
	from := ready
	if len(after) > 0 {
		from = after[0].At.Add(-time.Second)
	}
	run.TPS = phases(ss, run.QueryStart, ready, from)
	return nil
}

// afterError checks that the runaway's own session survived and lets
// pgbench run for the time after.
func (r *oomRun) afterError(ctx context.Context, run *OOMRun, b *bench, q session) error {
	if run.Outcome != OutcomeOutOfMemory {
		return fmt.Errorf("the runaway query was neither killed nor refused memory: %s %s (raise --rows or lower --limit)", run.Outcome, run.QueryError)
	}
	lost, _ := alive(ctx, []session{q})
	run.Sessions.RunawayLost = lost > 0
	if err := sleep(ctx, time.Duration(r.cfg.AfterSeconds*float64(time.Second))+500*time.Millisecond); err != nil {
		return err
	}
	b.stop()
	run.TPS = phases(b.Samples(), run.QueryStart, run.QueryEnd, run.QueryEnd)
	return nil
}

// account counts the sessions lost and reads the cgroup's counters.
func (r *oomRun) account(run *OOMRun, b *bench, idle []session, killsBefore *uint64) {
	s := &run.Sessions
	s.PgbenchClients, s.Idle = r.cfg.Clients, len(idle)
	s.Open = s.PgbenchClients + s.Idle + 1
	s.PgbenchAborted = b.Aborted()
	s.IdleLost, s.IdleError = alive(context.Background(), idle)
	if run.Outcome == OutcomeKilled {
		s.RunawayLost = true
	}
	s.Lost = s.PgbenchAborted + s.IdleLost
	if s.RunawayLost {
		s.Lost++
	}
	st := r.g.Read()
	run.PeakBytes = st.PeakBytes
	if st.OOMKills != nil && killsBefore != nil {
		n := *st.OOMKills - *killsBefore
		run.OOMKills = &n
	}
}

// explain reads the kernel log and the server log of the run and runs the
// post-mortem on them.
func (r *oomRun) explain(ctx context.Context, run *OOMRun, mark kmsgMarker, logOff int64) error {
	kernel, err := mark.since(ctx)
	if err != nil {
		return err
	}
	server, err := serverLogSince(r.c.LogFile, logOff)
	if err != nil {
		return err
	}
	run.kernelText, run.serverText = kernel, server
	run.ServerLog = eventLines(server)
	run.KillLine = killLine(kernel, run.QueryPID)
	instance := fmt.Sprintf("lab cluster, port %d", r.c.Port)
	run.Postmortem, run.PostmortemText = postmortemOf(kernel, server, r.c.LogFile, instance, r.zone, r.boot)
	if run.Outcome == OutcomeKilled {
		run.Verdict = judgeKill(run.Postmortem, run.QueryPID, r.g.Path)
		killTimes(run)
	} else {
		run.Verdict = judgeOutOfMemory(run.Postmortem, run.QueryPID, r.g.Path)
	}
	return nil
}

// killTimes dates the kill from the kernel's log, as the post-mortem read
// it, and measures the time until ready from it.
func killTimes(run *OOMRun) {
	run.KilledAt = run.GoneAt
	if e, _ := eventOf(run.Postmortem, run.QueryPID); e != nil {
		if e.Time != nil {
			t := *e.Time
			run.KilledAt = &t
		}
		if e.Crash != nil && e.Crash.Downtime != nil && *e.Crash.Downtime > 0 {
			d := *e.Crash.Downtime
			run.ServerDowntime = &d
		}
	}
	if run.KilledAt != nil && run.ReadyAt != nil {
		d := run.ReadyAt.Sub(*run.KilledAt)
		run.ReadyAfter = &d
	}
}
