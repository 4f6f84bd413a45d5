package plan

import (
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
)

// measureSpills collects where queries spill to disk: per role from
// pg_stat_statements and the server log, per instance from
// pg_stat_database; and says what could not be read.
func measureSpills(m *budget.Measured, fs linux.FS, pg *postgres.Instance) {
	w := pg.Work
	if w == nil {
		if pg.Connected {
			m.Gaps = append(m.Gaps, budget.Gap{What: "spills, roles' own settings",
				Why: "the connection did not read them (a capture made without them, or --no-budget)", Fix: "run dbmem plan on the host"})
		}
		return
	}
	for _, g := range w.Gaps {
		m.Gaps = append(m.Gaps, budget.Gap(g))
	}
	statementSpills(m, w)
	databaseTemp(m, w)
	switch {
	case w.LogTempFiles == nil:
	case *w.LogTempFiles < 0:
		m.Gaps = append(m.Gaps, budget.Gap{What: "temporary files in the server log", Why: "log_temp_files = -1: the server logs none",
			Fix: "ALTER SYSTEM SET log_temp_files = 0; SELECT pg_reload_conf(); (one line per temporary file, with its size)"})
	default:
		logSpills(m, pg.ReadTempLog(fs, postgres.TempLogMaxBytes), *w.LogTempFiles)
	}
}

// statementSpills: per role, the most temp blocks one statement wrote per
// call, in bytes.
func statementSpills(m *budget.Measured, w *postgres.WorkStats) {
	st := w.Statements
	if st == nil {
		return
	}
	since := ""
	if st.Reset != "" {
		since = ", since its reset at " + st.Reset
	}
	if st.Entries == 0 {
		m.Gaps = append(m.Gaps, budget.Gap{What: "pg_stat_statements", Why: "empty" + since + ": no statement recorded yet"})
		return
	}
	for _, r := range st.Roles {
		b := uint64(r.MaxBlksPerCall * float64(w.BlockSize))
		if b == 0 {
			continue
		}
		m.Spills = append(m.Spills, budget.Spill{Role: r.Role, Bytes: b,
			Source: fmt.Sprintf("pg_stat_statements: a statement wrote %.0f temp blocks per call (%d statements, %d temp blocks in all%s)",
				r.MaxBlksPerCall, r.Queries, r.TempBlksWritten, since)})
	}
}

func databaseTemp(m *budget.Measured, w *postgres.WorkStats) {
	if len(w.Databases) == 0 {
		return
	}
	var files, bytes uint64
	since := ""
	for _, d := range w.Databases {
		files += uint64(max(d.TempFiles, 0))
		bytes += uint64(max(d.TempBytes, 0))
		if d.Reset != "" && (since == "" || d.Reset < since) {
			since = d.Reset
		}
	}
	m.TempFiles, m.TempBytes = &files, &bytes
	m.TempSince = "pg_stat_database"
	if since != "" {
		m.TempSince += ", since " + since
	}
}

// logSpills keeps each role's largest temporary file from the log.
func logSpills(m *budget.Measured, t postgres.TempLog, threshold int64) {
	for _, g := range t.Gaps {
		m.Gaps = append(m.Gaps, budget.Gap(g))
	}
	if t.Path == "" || len(t.Gaps) > 0 && t.ReadBytes == 0 {
		return
	}
	span := "the " + units.Bytes(uint64(t.ReadBytes)) + " read"
	if !t.First.IsZero() {
		span = "since " + t.First.Format(time.DateTime)
	}
	for _, f := range t.Files {
		m.Spills = append(m.Spills, budget.Spill{Role: f.User, Bytes: f.Bytes,
			Source: fmt.Sprintf("server log: the largest of %d temporary files (%s in all) at %s (%s %s, %s)",
				f.Count, units.Bytes(f.TotalBytes), f.TimeRaw, t.Format, t.Path, span)})
	}
	if len(t.Files) == 0 {
		m.Gaps = append(m.Gaps, budget.Gap{What: "temporary files in the server log",
			Why: fmt.Sprintf("none in %s (%s, %s): a spill before it (a log rotated since, or older than the last %s) or under log_temp_files = %d kB is not seen",
				t.Path, t.Format, span, units.Bytes(postgres.TempLogMaxBytes), threshold)})
	}
}
