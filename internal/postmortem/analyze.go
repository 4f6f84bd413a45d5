package postmortem

import (
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/dblog"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/oomlog"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// DefaultTolerance is how far apart a kill and a crash restart may be
// logged to be paired by time when no PID links them.
const DefaultTolerance = time.Minute

// Input is everything Analyze reads. It does no I/O.
type Input struct {
	Logs []Log
	// Snapshot of the host now (or the bundle's), for the roles of
	// processes still running and the advice; may be nil.
	Snapshot *snapshot.Snapshot
	// BootTime dates the snapshot's process start times.
	BootTime time.Time
	// Findings are advise.Check's on Snapshot; only OOM-related ones are
	// kept. FindingsAbout says which state of the host they judge ("this
	// host now", "the host as captured at ...").
	Findings      []advise.Finding
	FindingsAbout string
	// Zone shows times and reads stamps without a zone (default UTC).
	Zone string
	// Tolerance pairs kills and crashes by time (default DefaultTolerance).
	Tolerance time.Duration
	// Since drops kills before it; Last keeps only the last N (0: all).
	Since time.Time
	Last  int
	Gaps  []linux.Gap
}

// Analyze explains every OOM kill in the logs.
func Analyze(in Input) *Report {
	loc, ok := ParseZone(in.Zone)
	if !ok {
		loc, in.Zone = time.UTC, "UTC"
	}
	if in.Tolerance <= 0 {
		in.Tolerance = DefaultTolerance
	}
	kills, kc := parseKernel(in.Logs, loc)
	crashes, errs, dc := parseDB(in.Logs, loc)
	r := &Report{Schema: Schema, Zone: in.Zone, Kills: len(kills), Events: []Explained{}, Gaps: in.Gaps}
	if in.Snapshot != nil {
		r.Host = in.Snapshot.Host.Hostname
	}
	r.Sources = summarize(in.Logs, kc, dc)
	byKill, used := pair(kills, crashes, in.Tolerance)
	rl := newRoles(in.Snapshot, in.BootTime, crashes)
	for i, k := range kills {
		if !shown(i, k, len(kills), in) {
			r.Omitted++
			continue
		}
		p, paired := byKill[i]
		var pc *crashRef
		if paired {
			pc = &crashes[p.Crash]
		}
		r.Events = append(r.Events, explain(k, pc, &p, rl, loc))
	}
	r.Crashes = unpaired(crashes, used, in.Since, loc)
	r.OutOfMemory = oomErrors(errs, in.Since, loc)
	if len(r.Events) > 0 {
		r.Advice = eventAdvice(r.Events, in.Snapshot)
		r.Findings, r.FindingsAbout = RelevantFindings(in.Findings, instancesOf(r.Events)), in.FindingsAbout
	}
	return r
}

// pair matches kills with crash restarts: the pair of each kill, and the
// crashes used.
func pair(kills []kill, crashes []crashRef, tol time.Duration) (map[int]dblog.Pair, map[int]bool) {
	byKill, used := map[int]dblog.Pair{}, map[int]bool{}
	for _, p := range dblog.Match(events(kills), crashRestarts(crashes), tol) {
		byKill[p.Kernel], used[p.Crash] = p, true
	}
	return byKill, used
}

// shown applies --since and --last to kill i of n.
func shown(i int, k kill, n int, in Input) bool {
	if !in.Since.IsZero() && !k.Time.Wall.IsZero() && k.Time.Wall.Before(in.Since) {
		return false
	}
	return in.Last <= 0 || i >= n-in.Last
}

func events(kills []kill) []oomlog.Event {
	out := make([]oomlog.Event, len(kills))
	for i, k := range kills {
		out[i] = k.Event
	}
	return out
}

func crashRestarts(cs []crashRef) []dblog.CrashRestart {
	out := make([]dblog.CrashRestart, len(cs))
	for i, c := range cs {
		out[i] = c.CrashRestart
	}
	return out
}

// unpaired explains the crash restarts no kill explains.
func unpaired(cs []crashRef, used map[int]bool, since time.Time, loc *time.Location) []Crash {
	var out []Crash
	for i, c := range cs {
		if used[i] || (!since.IsZero() && !c.Time.IsZero() && c.Time.Before(since)) {
			continue
		}
		out = append(out, explainCrash(c, dblog.Pair{}, time.Time{}, loc))
	}
	return out
}

func oomErrors(errs []oomErrRef, since time.Time, loc *time.Location) []OOMError {
	var out []OOMError
	for _, e := range errs {
		if !since.IsZero() && !e.Time.IsZero() && e.Time.Before(since) {
			continue
		}
		o := OOMError{TimeRaw: e.TimeRaw, Instance: e.Instance, Source: e.Source, PID: e.PID, Severity: e.Severity,
			RequestBytes: e.RequestBytes, Context: e.Context, Query: e.Query}
		if !e.Time.IsZero() {
			o.Time = e.Time.In(loc)
		}
		if l := e.Largest(1); len(l) > 0 {
			o.Largest, o.LargestBytes = l[0].Name, l[0].TotalBytes
		}
		if e.GrandTotal != nil {
			o.GrandTotal = e.GrandTotal.TotalBytes
		}
		out = append(out, o)
	}
	return out
}

// summarize pairs each source with what was found in it.
func summarize(logs []Log, kills map[int]int, db map[int][2]int) []SourceSummary {
	out := make([]SourceSummary, 0, len(logs))
	for i, l := range logs {
		out = append(out, SourceSummary{Log: l, Kills: kills[i], Crashes: db[i][0], OOMErrors: db[i][1]})
	}
	return out
}
