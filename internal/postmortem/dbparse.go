package postmortem

import (
	"bytes"
	"time"

	"github.com/dbmem/dbmem/internal/dblog"
)

// crashRef is a crash restart and the log it was read from.
type crashRef struct {
	dblog.CrashRestart
	Source, Instance string
	// ThisHost is true for a log dbmem found for one of this host's
	// instances (or the bundle's); a --db-log file may come from anywhere.
	ThisHost bool
}

// oomErrRef is an "out of memory" error and its log.
type oomErrRef struct {
	dblog.OutOfMemoryError
	Source, Instance string
}

// pmRef is a postmaster PID a database log shows.
type pmRef struct {
	dblog.Postmaster
	Instance string
}

// dbResult is what the database logs hold.
type dbResult struct {
	crashes     []crashRef
	errs        []oomErrRef
	postmasters []pmRef
	counts      map[int][2]int // crashes and errors per source index
	longLines   map[int]int
	memErrs     []MemoryError
	terms       []Termination
	ready       []ServerReady
	memCounts   map[int]int
}

// parseDB reads every database log. A log of unknown kind (--db-log) is
// read as what its lines look like.
func parseDB(logs []Log, def *time.Location) dbResult {
	res := dbResult{counts: map[int][2]int{}, longLines: map[int]int{}, memCounts: map[int]int{}}
	for i, l := range logs {
		if l.State != StateRead || l.Kind == KindKernel || l.Kind == KindService || l.Kind == KindUnknown {
			continue
		}
		o := dblog.Options{Location: l.location(def)}
		kind := l.Kind
		if kind == "" {
			kind = guessDBKind(l.Text)
		}
		switch kind {
		case KindMySQL:
			my, _ := o.ReadMySQL(bytes.NewReader(l.Text)) // reading from memory does not fail
			res.crashes = addCrashes(res.crashes, my.Crashes, l)
			res.memErrs = append(res.memErrs, memoryErrors(my.MemoryErrors, l, def)...)
			res.ready = append(res.ready, readyTimes(my.Ready, l, def)...)
			res.counts[i], res.longLines[i], res.memCounts[i] = [2]int{len(my.Crashes), 0}, my.Stats.LongLines, len(my.MemoryErrors)
			continue
		case KindOracle:
			ora, _ := o.ReadOracle(bytes.NewReader(l.Text))
			res.memErrs = append(res.memErrs, memoryErrors(ora.MemoryErrors, l, def)...)
			res.terms = append(res.terms, terminations(ora.Terminations, l, def)...)
			res.longLines[i], res.memCounts[i] = ora.Stats.LongLines, len(ora.MemoryErrors)
			continue
		case KindUnknown, KindService, KindKernel:
			continue
		}
		pg, _ := o.ParsePostgres(bytes.NewReader(l.Text))
		res.crashes = addCrashes(res.crashes, pg.Crashes, l)
		for _, e := range pg.OutOfMemory {
			res.errs = append(res.errs, oomErrRef{OutOfMemoryError: e, Source: l.Source, Instance: l.Instance})
		}
		for _, p := range pg.Postmasters {
			res.postmasters = append(res.postmasters, pmRef{Postmaster: p, Instance: l.Instance})
		}
		res.counts[i], res.longLines[i] = [2]int{len(pg.Crashes), len(pg.OutOfMemory)}, pg.Stats.LongLines
	}
	return res
}

// addCrashes appends crashes not already read from another file (a log
// read twice, or csvlog and stderr of one server).
func addCrashes(out []crashRef, cs []dblog.CrashRestart, l Log) []crashRef {
	for _, c := range cs {
		dup := false
		for _, o := range out {
			if eqInt(o.KilledPID, c.KilledPID) && o.Time.Equal(c.Time) && o.Engine == c.Engine && o.TimeRaw == c.TimeRaw {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, crashRef{CrashRestart: c, Source: l.Source, Instance: l.Instance, ThisHost: !l.Given})
		}
	}
	return out
}

func eqInt(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// guessDBKind says which engine wrote a database log, from its content
// (dblog.Detect); KindUnknown when none: nothing is assumed.
func guessDBKind(text []byte) Kind {
	switch dblog.Detect(text).Engine {
	case dblog.EnginePostgres:
		return KindPostgres
	case dblog.EngineMySQL:
		return KindMySQL
	case dblog.EngineOracle:
		return KindOracle
	}
	return KindUnknown
}
