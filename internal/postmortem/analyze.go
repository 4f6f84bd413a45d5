package postmortem

import (
	"time"

	"github.com/dbmem/dbmem/internal/dblog"
	"github.com/dbmem/dbmem/internal/finding"
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
	// ThisHost names the host whose state Snapshot and Findings describe
	// (this one, or a bundle's): logs that name another host, or files
	// given on the command line that do not name it, are explained from
	// the logs alone.
	ThisHost HostID
	// Snapshot of the host now (or the bundle's), for the roles of
	// processes still running and the remarks on this host; may be nil.
	Snapshot *snapshot.Snapshot
	// BootTime dates the snapshot's process start times.
	BootTime time.Time
	// Findings are advise.Check's on Snapshot; only OOM-related ones are
	// kept. FindingsAbout says which state of the host they judge ("this
	// host as it is now", "the host as captured at ...").
	Findings      []finding.Finding
	FindingsAbout string
	// Hugetlb are the hugetlb cgroup limits of this host's instances
	// (ReadHugetlb), to confirm a bus error's cause.
	Hugetlb []HugetlbLimits
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
	kills, kr := parseKernel(in.Logs, loc, in.ThisHost)
	db := parseDB(in.Logs, loc)
	ur := parseUnits(in.Logs, loc)
	r := &Report{Schema: Schema, Zone: in.Zone, Host: in.ThisHost.Name, Kills: len(kills), Events: []Explained{}, Gaps: in.Gaps}
	r.Sources = summarize(in.Logs, kr, db, ur)
	var shownKills []kill
	byKill, used := pair(kills, db.crashes, in.Tolerance)
	local := newRoles(in.Snapshot, in.BootTime, db)
	foreign := newRoles(nil, time.Time{}, db)
	for i, k := range kills {
		if !shown(i, k, len(kills), in) {
			r.Omitted++
			continue
		}
		p, paired := byKill[i]
		var pc *crashRef
		if paired {
			pc = &db.crashes[p.Crash]
		}
		rl := foreign
		if k.ThisHost {
			rl = local
		}
		r.Events = append(r.Events, explain(k, pc, &p, rl, loc))
		shownKills = append(shownKills, k)
	}
	r.Services, r.Killers = ur.services, ur.killers
	tie(r.Services, r.Events, shownKills, r.Killers)
	serviceNotes(r)
	r.MemoryErrors, r.Terminations, r.Ready = db.memErrs, db.terms, db.ready
	r.Crashes = unpaired(db.crashes, used, in.Since, loc)
	r.OutOfMemory = oomErrors(db.errs, in.Since, loc)
	r.Advice = append(logAdvice(r.Events, r.Crashes), chainAdvice(r)...)
	r.ThisHost, r.ThisHostWhy = hostSection(r, in, db.crashes)
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
		o := OOMError{Time: timeIn(e.Time, loc), TimeRaw: e.TimeRaw, ZoneKnown: e.ZoneKnown, ZoneWritten: e.ZoneWritten,
			Instance: e.Instance, Source: e.Source, Kind: e.Kind, Severity: e.Severity, Message: e.Message, Context: e.Context,
			Query: e.Query, RequestRedacted: e.RequestRedacted, ErrorContext: e.ErrorContext, AutovacuumTarget: e.AutovacuumTarget}
		if e.PID != 0 {
			o.PID = oomlog.Int(e.PID)
		}
		if e.RequestBytes > 0 && !e.RequestRedacted {
			o.RequestBytes = oomlog.U64(e.RequestBytes)
		}
		for i, c := range e.Largest(3) {
			if i == 0 {
				o.Largest, o.LargestBytes = c.Name, oomlog.U64(c.TotalBytes)
			}
			o.LargestContexts = append(o.LargestContexts, NamedBytes{Name: c.Name, Bytes: c.TotalBytes})
		}
		if !e.Time.IsZero() {
			o.ZoneNote = zoneNote(e.ZoneKnown, e.ZoneWritten)
		}
		if e.GrandTotal != nil {
			o.GrandTotal = oomlog.U64(e.GrandTotal.TotalBytes)
		}
		out = append(out, o)
	}
	return out
}

// summarize pairs each source with what was found in it.
func summarize(logs []Log, kr kernelResult, db dbResult, ur unitResult) []SourceSummary {
	out := make([]SourceSummary, 0, len(logs))
	for i, l := range logs {
		s := SourceSummary{Log: l, Kills: kr.kills[i], Crashes: db.counts[i][0], OOMErrors: db.counts[i][1],
			Services: ur.counts[i][0], Killers: ur.counts[i][1], MemoryErrors: db.memCounts[i]}
		s.LongLines = kr.longLines[i] + db.longLines[i]
		out = append(out, s)
	}
	return out
}
