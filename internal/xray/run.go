package xray

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // log_timezone names zones the reading host may not have

	"github.com/dbmem/dbmem/internal/dblog"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/measure"
	"github.com/dbmem/dbmem/internal/pagecost"
	"github.com/dbmem/dbmem/internal/postgres"
)

// Caller asks backends to log their memory contexts over the verified
// connection: postgres.Connector.
type Caller interface {
	LogContexts(ctx context.Context, in *postgres.Instance, pids []int) (postgres.ContextsAnswer, error)
}

// Options drive Run.
type Options struct {
	FS     linux.FS
	Caller Caller
	// Wait bounds the wait for the dumps (default 10 s); Poll is how often
	// the log is read meanwhile (default 5 ms).
	Wait, Poll time.Duration
	// Top is how many of the largest contexts each backend shows (default 8).
	Top int
	// Method measures Pss_Anon (default measure.Auto).
	Method measure.Method
	// MaxRead bounds what is read of the log (DefaultMaxRead).
	MaxRead int64
}

func (o Options) withDefaults() Options {
	o.FS = o.FS.OrDefault()
	if o.Wait <= 0 {
		o.Wait = 10 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = 5 * time.Millisecond
	}
	if o.Top <= 0 {
		o.Top = 8
	}
	o.Method = cmp.Or(o.Method, measure.Auto)
	return o
}

// Run X-rays the backends pids of in (at most MaxBackends).
func Run(ctx context.Context, in *postgres.Instance, pids []int, o Options) Result {
	o = o.withDefaults()
	r := Result{Schema: SchemaVersion, PostmasterPID: in.PostmasterPID, Port: in.Port, DataDir: in.DataDir, Version: in.Version, Backends: []Backend{}}
	if len(pids) > MaxBackends {
		pids = pids[:MaxBackends]
	}
	for _, pid := range pids {
		r.Backends = append(r.Backends, describe(in, pid))
	}
	if !in.Connected {
		r.Problem = "not connected to the server: " + in.Connection
		r.Fix = "the X-ray calls pg_log_backend_memory_contexts over dbmem's verified connection: run as root, or with --pg-user"
		return r
	}
	settings := settingValues(in.Settings)
	r.Log = Locate(o.FS, in, settings)
	var fl *Follower
	if r.Log.Readable() {
		var err error
		if fl, err = Follow(o.FS.As(in.Account), r.Log, relocator(o.FS, in, settings), o.MaxRead); err != nil {
			r.Log = Source{Why: err.Error(), How: "run dbmem as root or as the server's account"}
		} else {
			defer fl.Close()
		}
	}
	start := time.Now()
	if sequential(r.Log, settings) {
		for i := range r.Backends {
			run(ctx, in, &r, r.Backends[i:i+1], fl, o)
		}
	} else {
		run(ctx, in, &r, r.Backends, fl, o)
	}
	r.Elapsed = time.Since(start)
	if fl != nil {
		r.LogNotes = fl.Notes
	}
	return r
}

// sequential is true when the log's lines carry no PID (stderr with a
// log_line_prefix without %p): backends are then asked one at a time, so
// that their dumps cannot interleave.
func sequential(src Source, settings map[string]string) bool {
	return src.Format == "stderr" && !strings.Contains(settings["log_line_prefix"], "%p")
}

func settingValues(s postgres.Settings) map[string]string {
	out := map[string]string{}
	for k, v := range s {
		out[k] = v.Value
	}
	return out
}

func relocator(fs linux.FS, in *postgres.Instance, settings map[string]string) func() Source {
	if !isOn(settings["logging_collector"]) {
		return nil
	}
	return func() Source { return Locate(fs, in, settings) }
}

func describe(in *postgres.Instance, pid int) Backend {
	b := Backend{PID: pid}
	if p, ok := in.Process(pid); ok {
		b.Role, b.User, b.Database, b.State = string(p.Role), p.User, p.Database, p.State
	} else {
		b.Problem = fmt.Sprintf("process %d is not a process of postmaster %d", pid, in.PostmasterPID)
	}
	return b
}

// run asks the backends of bs and waits for their dumps.
func run(ctx context.Context, in *postgres.Instance, r *Result, bs []Backend, fl *Follower, o Options) {
	var pids []int
	for _, b := range bs {
		if b.Problem == "" {
			pids = append(pids, b.PID)
		}
	}
	if len(pids) == 0 || r.Problem != "" {
		return
	}
	a, err := o.Caller.LogContexts(ctx, in, pids)
	if err != nil {
		r.Problem = "could not ask the server: " + err.Error()
		return
	}
	r.Role, r.Superuser = a.Role, a.Superuser
	if !answered(in, r, a) {
		return
	}
	asked := map[int]postgres.ContextsCall{}
	for _, c := range a.Calls {
		asked[c.PID] = c
	}
	for i := range bs {
		c, ok := asked[bs[i].PID]
		switch {
		case !ok:
			bs[i].Problem = fmt.Sprintf("not asked: the connection's answer names no call for process %d", bs[i].PID)
		case c.Error != "":
			bs[i].Problem = c.Error
		case !c.Sent:
			bs[i].Problem = fmt.Sprintf("the server says %d is not one of its processes (it exited?)", c.PID)
		default:
			bs[i].Asked = c.At
		}
	}
	if fl == nil {
		for i := range bs {
			if bs[i].Problem == "" {
				bs[i].Problem = "the dump was written to a log dbmem cannot read here: " + r.Log.Why
			}
		}
		return
	}
	wait(ctx, fl, bs, logLocation(a.Settings["log_timezone"]), o)
}

// answered checks the server's answer: the function is there, the role
// may call it, the log takes LOG lines. It sets the problem and fix.
func answered(in *postgres.Instance, r *Result, a postgres.ContextsAnswer) bool {
	switch {
	case !a.Function && in.Major > 0 && in.Major < 14:
		r.Problem = fmt.Sprintf("PostgreSQL %d has no pg_log_backend_memory_contexts: the X-ray needs PostgreSQL 14 or later", in.Major)
		r.Fix = "upgrade; on this version, gdb -p PID -batch -ex 'call MemoryContextStats(TopMemoryContext)' writes the same dump to the server's stderr"
	case !a.Function:
		r.Problem = "the catalog has no " + postgres.ContextsFunction + ": the server cannot be asked for its backends' memory contexts"
	case !a.Allowed:
		r.Problem = fmt.Sprintf("role %s may not execute pg_log_backend_memory_contexts (superuser only by default)", a.Role)
		r.Fix = fmt.Sprintf(postgres.ContextsGrant, quoteIdent(a.Role)) + ", or connect as a superuser (--pg-user)"
	case quiet(a.Settings["log_min_messages"]):
		r.Problem = fmt.Sprintf("log_min_messages = %s: the server writes no LOG line, so no dump", a.Settings["log_min_messages"])
		r.Fix = "SET log_min_messages to warning or lower (ALTER SYSTEM SET log_min_messages = 'warning'; SELECT pg_reload_conf())"
	default:
		return true
	}
	return false
}

// quiet reports whether log_min_messages drops LOG messages (LOG ranks
// between ERROR and FATAL in the server log).
func quiet(level string) bool {
	l := strings.ToLower(strings.TrimSpace(level))
	return l == "fatal" || l == "panic"
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func logLocation(name string) *time.Location {
	if loc, err := time.LoadLocation(name); err == nil && name != "" {
		return loc
	}
	return time.UTC
}

// clockSlack is how far a dump's stamp may precede the call (the log's
// stamps are in milliseconds, clock_timestamp() in microseconds).
const clockSlack = time.Second

// wait polls the log until every asked backend's dump is read, or o.Wait.
func wait(ctx context.Context, fl *Follower, bs []Backend, loc *time.Location, o Options) {
	deadline := time.Now().Add(o.Wait)
	tick := time.NewTicker(o.Poll)
	defer tick.Stop()
	for {
		n, err := fl.Poll()
		if err != nil {
			fail(bs, "the log could not be read to the end: "+err.Error())
			return
		}
		if n > 0 && bytesHasGrand(fl.Text()) && match(fl.Text(), bs, loc, o) {
			return
		}
		if time.Now().After(deadline) {
			fail(bs, fmt.Sprintf("no complete dump in %s within %s (the backend did not reach a point where it handles interrupts, or the log is written elsewhere)", fl.Source().Path, o.Wait))
			return
		}
		select {
		case <-ctx.Done():
			fail(bs, "interrupted before the dump was read")
			return
		case <-tick.C:
		}
	}
}

func bytesHasGrand(b []byte) bool { return strings.Contains(string(b), "Grand total: ") }

// fail sets problem on every backend still waiting.
func fail(bs []Backend, problem string) {
	for i := range bs {
		if pending(bs[i]) {
			bs[i].Problem = problem
		}
	}
}

func pending(b Backend) bool { return b.Problem == "" && b.Breakdown == nil && !b.Asked.IsZero() }

// match parses the text read and X-rays each pending backend whose dump
// is complete; it reports whether none is pending any more.
func match(text []byte, bs []Backend, loc *time.Location, o Options) bool {
	log, _ := dblog.Options{Location: loc}.ParsePostgres(strings.NewReader(string(text)))
	done := true
	for i := range bs {
		if !pending(bs[i]) {
			continue
		}
		d, ok := dumpOf(log.ContextDumps, bs[i], len(bs) == 1)
		if !ok {
			done = false
			continue
		}
		xray(&bs[i], d, o)
	}
	return done
}

// dumpOf finds the backend's dump: its PID's (or, when it is the only
// backend asked, a dump without PID), starting after the call. A dump
// found with a problem is returned too, to be said.
func dumpOf(ds []dblog.ContextDump, b Backend, alone bool) (dblog.ContextDump, bool) {
	for _, d := range ds {
		if d.PID != b.PID && !(alone && d.PID == 0) {
			continue
		}
		if !d.Time.IsZero() && d.Time.Before(b.Asked.Add(-clockSlack)) {
			continue
		}
		if d.Complete || d.GrandTotal != nil {
			return d, true
		}
	}
	return dblog.ContextDump{}, false
}

// xray measures the backend now and breaks its private cost down.
func xray(b *Backend, d dblog.ContextDump, o Options) {
	b.DumpAt, b.Contexts = d.Time, len(d.Contexts)
	if !d.Complete {
		b.Problem = "its dump is not whole: " + d.Problem
		return
	}
	m, err := measureOne(o.FS, b.PID, o.Method)
	if err != nil {
		b.Problem = "the dump was read but the process could not be measured: " + err.Error()
		return
	}
	if !d.End.IsZero() {
		b.MeasuredAfter = max(time.Since(d.End), 0)
	}
	b.Measure = &m
	br := Analyze(d, m, o.Top)
	b.Breakdown = &br
}

// measure reads the backend's private cost and its JIT pages.
func measureOne(fs linux.FS, pid int, method measure.Method) (Measure, error) {
	costs, skipped, err := pagecost.Measure(fs, []int{pid}, pagecost.OptionsFor(method))
	if err != nil {
		return Measure{}, err
	}
	if len(costs) != 1 {
		if len(skipped) > 0 {
			return Measure{}, skipped[0].Err
		}
		return Measure{}, fmt.Errorf("process %d was not measured", pid)
	}
	c := costs[0]
	anon, _ := c.AnonBytes()
	m := Measure{PssAnonBytes: anon, Exact: c.Exact()}
	if c.VmPTEBytes != nil {
		m.VmPTEBytes = *c.VmPTEBytes
	}
	if c.VmSwapBytes != nil {
		m.VmSwapBytes = *c.VmSwapBytes
	}
	jit, loaded, err := MeasureJIT(fs, pid)
	m.JITBytes, m.JITLoaded, m.JITKnown = jit, loaded, err == nil
	return m, nil
}
