package postmortem

import (
	"fmt"
	"io"
	"strings"

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
		s := fmt.Sprintf("%s (%s) was terminated by signal %d", orUnknown(c.Process), pid, *c.Signal)
		if c.SignalName != "" {
			s += ": " + c.SignalName
		}
		return s
	case c.ExitCode != nil:
		return fmt.Sprintf("%s (%s) exited with exit code %d", orUnknown(c.Process), pid, *c.ExitCode)
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
	if c.Recovery != nil {
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
		fmt.Fprintf(w, "  %s\n", stamp(c.Time, c.TimeRaw, ""))
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
		fmt.Fprintf(w, "  %s  %s %s: %s", stamp(e.Time, e.TimeRaw, ""), e.Severity, pid, inert.Text(oneLine(e.Message, 200)))
		if e.RequestBytes != nil {
			fmt.Fprintf(w, "; request of %s in %q", units.Bytes(*e.RequestBytes), inert.Text(e.Context))
		}
		if e.Largest != "" && e.LargestBytes != nil && e.GrandTotal != nil {
			fmt.Fprintf(w, "; largest context %s %s of %s", inert.Text(e.Largest), units.Bytes(*e.LargestBytes), units.Bytes(*e.GrandTotal))
		}
		fmt.Fprintln(w)
		if e.Query != "" {
			fmt.Fprintf(w, "    query: %s\n", inert.Text(oneLine(e.Query, 300)))
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
