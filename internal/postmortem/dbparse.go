package postmortem

import (
	"bytes"
	"regexp"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/dblog"
)

// crashRef is a crash restart and the log it was read from.
type crashRef struct {
	dblog.CrashRestart
	Source, Instance string
}

// oomErrRef is an "out of memory" error and its log.
type oomErrRef struct {
	dblog.OutOfMemoryError
	Source, Instance string
}

// parseDB reads every database log. A log of unknown kind (--db-log) is
// read as what its lines look like.
func parseDB(logs []Log, def *time.Location) ([]crashRef, []oomErrRef, map[int][2]int) {
	var crashes []crashRef
	var errs []oomErrRef
	counts := map[int][2]int{}
	for i, l := range logs {
		if l.State != StateRead || l.Kind == KindKernel {
			continue
		}
		o := dblog.Options{Location: l.location(def)}
		kind := l.Kind
		if kind == "" {
			kind = guessDBKind(l.Text)
		}
		if kind == KindMySQL {
			cs, _ := o.ParseMySQL(bytes.NewReader(l.Text))
			crashes = addCrashes(crashes, cs, l)
			counts[i] = [2]int{len(cs), 0}
			continue
		}
		pg, _ := o.ParsePostgres(bytes.NewReader(l.Text))
		crashes = addCrashes(crashes, pg.Crashes, l)
		for _, e := range pg.OutOfMemory {
			errs = append(errs, oomErrRef{OutOfMemoryError: e, Source: l.Source, Instance: l.Instance})
		}
		counts[i] = [2]int{len(pg.Crashes), len(pg.OutOfMemory)}
	}
	return crashes, errs, counts
}

// addCrashes appends crashes not already read from another file (a log
// read twice, or csvlog and stderr of one server).
func addCrashes(out []crashRef, cs []dblog.CrashRestart, l Log) []crashRef {
	for _, c := range cs {
		dup := false
		for _, o := range out {
			if o.KilledPID == c.KilledPID && o.Time.Equal(c.Time) && o.Engine == c.Engine {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, crashRef{CrashRestart: c, Source: l.Source, Instance: l.Instance})
		}
	}
	return out
}

var (
	pgLineRe    = regexp.MustCompile(`\b(LOG|ERROR|FATAL|PANIC|WARNING|DETAIL|STATEMENT):  `)
	mysqlLineRe = regexp.MustCompile(`\[(Note|Warning|ERROR|System|Error)\]`)
)

// guessDBKind tells a MySQL error log from a PostgreSQL log by its first
// hundred lines.
func guessDBKind(text []byte) Kind {
	pg, my := 0, 0
	lines := strings.SplitN(string(text[:min(len(text), 64<<10)]), "\n", 101)
	for _, l := range lines {
		switch {
		case pgLineRe.MatchString(l), strings.HasPrefix(l, "{\"timestamp\""):
			pg++
		case mysqlLineRe.MatchString(l):
			my++
		}
	}
	if my > pg {
		return KindMySQL
	}
	return KindPostgres
}
