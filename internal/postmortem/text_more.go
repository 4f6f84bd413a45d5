package postmortem

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/units"
)

func writeCrash(w io.Writer, c Crash, indent string) {
	fmt.Fprintf(w, "%s%s (%s), log %s\n", indent, crashTitle(c), pairedHow(c), inert.Text(sourceName(Log{Source: c.Source, Instance: c.Instance})))
	if c.Guess != "" {
		fmt.Fprintf(w, "%s  %s\n", indent, c.Guess)
	}
	if line := deathLine(c); line != "" {
		fmt.Fprintf(w, "%s  %s\n", indent, inert.Text(line))
	}
	if c.Query != "" {
		fmt.Fprintf(w, "%s  it was running: %s\n", indent, inert.Text(oneLine(c.Query, 300)))
	}
	for _, s := range c.Steps {
		when := "(no time)"
		if s.At != nil {
			when = s.At.Format("15:04:05.000")
		}
		after := "          "
		if s.After != nil {
			after = fmt.Sprintf("%+9.3fs", s.After.Seconds())
		}
		fmt.Fprintf(w, "%s  %s  %s  %s\n", indent, after, when, s.What)
	}
	writeCrashSummary(w, c, indent)
	for _, n := range c.Notes {
		fmt.Fprintf(w, "%s  - %s\n", indent, inert.Text(n))
	}
}

func crashTitle(c Crash) string {
	switch {
	case c.Engine == "mysql" && c.StartupRecovery:
		return "MySQL/MariaDB recovery at startup"
	case c.Engine == "mysql" && c.NoRestart:
		return "MySQL/MariaDB crash, not restarted in the log"
	case c.Engine == "mysql":
		return "MySQL/MariaDB restart after a crash"
	case c.PostmasterDied:
		return "PostgreSQL postmaster death"
	case c.StartupRecovery:
		return "PostgreSQL recovery at startup"
	}
	return "PostgreSQL crash restart"
}

func pairedHow(c Crash) string {
	switch {
	case c.MatchedBy == "":
		return "no OOM kill in the kernel logs read matches it"
	case c.Certain:
		return "paired with the kill by " + c.MatchedBy + " (certain)"
	}
	return "paired with the kill by " + c.MatchedBy
}

// deathLine says what died, with what the log gave.
func deathLine(c Crash) string {
	if c.Engine != "postgresql" || c.PostmasterDied || c.StartupRecovery || c.StartMissing {
		return ""
	}
	pid := "PID " + notInLog
	if c.KilledPID != nil {
		pid = fmt.Sprintf("PID %d", *c.KilledPID)
	}
	switch {
	case c.Signal != nil:
		s := fmt.Sprintf("%s (%s) was terminated by signal %d", units.Or(c.Process, "(not named in the log)"), pid, *c.Signal)
		if c.SignalName != "" {
			s += ": " + c.SignalName
		}
		return s
	case c.ExitCode != nil:
		return fmt.Sprintf("%s (%s) exited with exit code %d", units.Or(c.Process, "(not named in the log)"), pid, *c.ExitCode)
	}
	return ""
}

func writeCrashSummary(w io.Writer, c Crash, indent string) {
	var parts []string
	if c.SessionsTerminated > 0 {
		parts = append(parts, plural(c.SessionsTerminated, "session")+" ended")
	}
	if c.ConnectionsRefused > 0 {
		parts = append(parts, plural(c.ConnectionsRefused, "connection")+" refused during recovery")
	}
	if c.Downtime != nil {
		parts = append(parts, "down "+shortDur(*c.Downtime))
	} else if !c.Incomplete && !c.NoRestart {
		parts = append(parts, "downtime "+notInLog+" (no times)")
	}
	if c.Recovery != nil && c.RecoveryWait != nil {
		parts = append(parts, fmt.Sprintf("recovery %s from redo start to ready, after waiting %s before redo started",
			shortDur(*c.Recovery), shortDur(*c.RecoveryWait)))
	} else if c.Recovery != nil {
		parts = append(parts, "recovery "+shortDur(*c.Recovery))
	}
	if c.NoRestart && !c.PostmasterDied && c.Engine == "postgresql" {
		parts = append(parts, "restart_after_crash = off: the server shut down")
	}
	if c.Incomplete {
		parts = append(parts, "incomplete: "+c.IncompleteReason)
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "%s  %s\n", indent, strings.Join(parts, "; "))
	}
}

func writeCrashes(w io.Writer, cs []Crash) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nDatabase crashes and restarts without a matching OOM kill (%d)\n", len(cs))
	for _, c := range cs {
		fmt.Fprintf(w, "  %s\n", dbTime(c.Time, c.TimeRaw, c.ZoneKnown, c.ZoneWritten))
		if c.ZoneNote != "" {
			fmt.Fprintf(w, "  (%s)\n", inert.Text(c.ZoneNote))
		}
		writeCrash(w, c, "  ")
	}
}

func writeOOMErrors(w io.Writer, es []OOMError) {
	if len(es) == 0 {
		return
	}
	fmt.Fprintf(w, "\nPostgreSQL \"out of memory\" errors (%d): an allocation failed, only that query, session or connection ended\n", len(es))
	for _, e := range es {
		pid := "pid " + notInLog
		if e.PID != nil {
			pid = fmt.Sprintf("pid %d", *e.PID)
		}
		fmt.Fprintf(w, "  %s  %s %s: %s", dbTime(e.Time, e.TimeRaw, e.ZoneKnown, e.ZoneWritten), e.Severity, pid, inert.Text(oneLine(e.Message, 200)))
		fmt.Fprintf(w, "; %s", requestText(e))
		fmt.Fprintln(w)
		if e.ZoneNote != "" {
			fmt.Fprintf(w, "    (%s)\n", inert.Text(e.ZoneNote))
		}
		if e.AutovacuumTarget != "" {
			fmt.Fprintf(w, "    autovacuum of %s (autovacuum_work_mem, else maintenance_work_mem, per worker)\n", inert.Text(e.AutovacuumTarget))
		} else if e.ErrorContext != "" {
			fmt.Fprintf(w, "    context: %s\n", inert.Text(oneLine(e.ErrorContext, 200)))
		}
		if len(e.LargestContexts) > 0 {
			fmt.Fprintf(w, "    largest memory contexts: %s\n", contextsText(e))
		}
		if e.Kind == "io-uring-setup" {
			fmt.Fprintln(w, "    io_uring: the rings are locked memory: RLIMIT_MEMLOCK (LimitMEMLOCK=) or kernel.io_uring_disabled, not RAM")
		}
		if e.Query != "" {
			fmt.Fprintf(w, "    query (%s): %s\n", plural(strings.Count(e.Query, "\n")+1, "line"), inert.Text(oneLine(e.Query, 300)))
		}
	}
}

func writeAdvice(w io.Writer, as []Advice) {
	if len(as) == 0 {
		return
	}
	fmt.Fprintln(w, "\nWhat these logs show (from the logs alone)")
	for _, a := range as {
		on := ""
		if len(a.Events) > 0 {
			on = fmt.Sprintf(" (events %v)", a.Events)
		}
		fmt.Fprintf(w, "  %s%s\n    why: %s\n    fix: %s\n", inert.Text(a.Title), on, inert.Text(a.Why), inert.Text(a.Fix))
	}
}

// dbTime shows a database log's time: as the log printed it when its zone
// is missing from dbmem's table or ambiguous (never converted silently),
// else in the report's zone.
func dbTime(t *time.Time, raw string, known bool, written string) string {
	switch {
	case t == nil:
		return stamp(t, raw, "")
	case !known && written != "":
		return inert.Text(strings.TrimSpace(raw)) + " (as written)"
	case !known:
		return t.Format("2006-01-02 15:04:05.000") + " (no zone in the log)"
	}
	return t.Format("2006-01-02 15:04:05.000 MST")
}

// requestText says what the failed allocation asked for.
func requestText(e OOMError) string {
	ctx := ""
	if e.Context != "" {
		ctx = fmt.Sprintf(" in %q", inert.Text(e.Context))
	}
	switch {
	case e.RequestBytes != nil:
		return "request of " + units.Bytes(*e.RequestBytes) + ctx
	case e.RequestRedacted:
		return "request size hidden in the log (unknown)" + ctx
	case e.Kind == "out-of-memory":
		return "request size " + notInLog + ctx
	}
	return "no request size (" + e.Kind + ")"
}

func contextsText(e OOMError) string {
	var parts []string
	for _, c := range e.LargestContexts {
		parts = append(parts, inert.Text(c.Name)+" "+units.Bytes(c.Bytes))
	}
	s := strings.Join(parts, ", ")
	if e.GrandTotal != nil {
		s += " of " + units.Bytes(*e.GrandTotal) + " in all"
	}
	return s
}
