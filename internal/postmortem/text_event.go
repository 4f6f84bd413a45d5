package postmortem

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/dbmem/dbmem/internal/units"
)

func writeEvent(w io.Writer, n int, x Explained, zone string) {
	fmt.Fprintf(w, "\n%d. %s  %s\n", n, stamp(x.Time, x.TimeRaw), scopeTitle(x.Scope))
	if !x.ZoneKnown && !x.Time.IsZero() {
		fmt.Fprintf(w, "   (the log printed no zone: %s assumed)\n", zone)
	}
	v := x.Victim
	if v.PID != 0 {
		fmt.Fprintf(w, "   killed   %s pid %d%s\n", v.Name, v.PID, roleText(v.Task))
		fmt.Fprintf(w, "            %s\n", victimSizes(v))
	}
	if t := x.Trigger; t != nil {
		fmt.Fprintf(w, "   trigger  %s pid %d%s\n", t.Name, t.PID, roleText(*t))
	}
	for _, s := range x.Notes {
		fmt.Fprintf(w, "   - %s\n", s)
	}
	writeTasks(w, x)
	if x.Crash != nil {
		writeCrash(w, *x.Crash, "   ")
	} else if isDatabase(v.Task) {
		fmt.Fprintln(w, "   No crash restart of its server was found in the database logs read (see Sources; --db-log gives one).")
	}
	fmt.Fprintf(w, "   seen in: %s\n", strings.Join(x.Sources, ", "))
}

func isDatabase(t Task) bool {
	return t.Role != "" || t.Name == "postgres" || t.Name == "postmaster" || t.Name == "mysqld" || t.Name == "mariadbd"
}

func roleText(t Task) string {
	if t.Role == "" {
		return ""
	}
	s := ": " + t.Role
	if t.Instance != "" {
		s += " of " + t.Instance
	}
	return s + " (from the " + t.RoleFrom + ")"
}

func victimSizes(v Victim) string {
	parts := []string{"anon-rss " + units.Bytes(v.AnonBytes), "file-rss " + units.Bytes(v.FileBytes)}
	if v.HasShmem {
		parts = append(parts, "shmem-rss "+units.Bytes(v.ShmemBytes))
	}
	parts = append(parts, "page tables "+units.Bytes(v.PgtablesBytes))
	if v.SwapBytes > 0 {
		parts = append(parts, "swap "+units.Bytes(v.SwapBytes))
	}
	if v.HasOOMScoreAdj {
		parts = append(parts, fmt.Sprintf("oom_score_adj %d", v.OOMScoreAdj))
	}
	if v.UID != nil {
		parts = append(parts, fmt.Sprintf("uid %d", *v.UID))
	}
	return strings.Join(parts, ", ")
}

func writeTasks(w io.Writer, x Explained) {
	if len(x.Tasks) == 0 {
		return
	}
	fmt.Fprintf(w, "   largest of the %s in the task table (RSS counts shared memory in every process that maps it):\n", plural(x.TaskCount, "process"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "     PID\tNAME\tROLE\tRSS\tANON\tSHMEM\tPGTABLES\tSWAP\tADJ\t")
	for _, t := range x.Tasks {
		role, mark := t.Role, ""
		if role == "" {
			role = "-"
		}
		if t.Victim {
			mark = "  <- killed"
		}
		anon, shmem := "-", "-"
		if x.TaskSplit {
			anon, shmem = units.Bytes(t.AnonBytes), units.Bytes(t.ShmemBytes)
		}
		fmt.Fprintf(tw, "     %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", t.PID, t.Name, role, units.Bytes(t.RSSBytes),
			anon, shmem, units.Bytes(t.PgtablesBytes), units.Bytes(t.SwapBytes), t.OOMScoreAdj, mark)
	}
	tw.Flush()
}

func writeCrash(w io.Writer, c Crash, indent string) {
	what := "PostgreSQL crash restart"
	if c.Engine == "mysql" {
		what = "MySQL/MariaDB restart after a crash"
	}
	how := "paired with the kill by " + c.MatchedBy
	switch {
	case c.MatchedBy == "":
		how = "no OOM kill in the kernel logs read matches it"
	case c.Certain:
		how += " (certain)"
	}
	fmt.Fprintf(w, "%s%s (%s), log %s\n", indent, what, how, sourceName(Log{Source: c.Source, Instance: c.Instance}))
	if c.Guess != "" {
		fmt.Fprintf(w, "%s  %s\n", indent, c.Guess)
	}
	if c.Engine == "postgresql" {
		fmt.Fprintf(w, "%s  %s (PID %d) was terminated by signal %d\n", indent, orUnknown(c.Process), c.KilledPID, c.Signal)
	}
	if c.Query != "" {
		fmt.Fprintf(w, "%s  it was running: %s\n", indent, oneLine(c.Query, 300))
	}
	for _, s := range c.Steps {
		fmt.Fprintf(w, "%s  %+9.3fs  %s  %s\n", indent, s.After.Seconds(), s.At.Format("15:04:05.000"), s.What)
	}
	writeCrashSummary(w, c, indent)
}

func writeCrashSummary(w io.Writer, c Crash, indent string) {
	var parts []string
	if c.SessionsTerminated > 0 {
		parts = append(parts, plural(c.SessionsTerminated, "other session")+" terminated")
	}
	if c.Downtime > 0 {
		parts = append(parts, "down "+shortDur(c.Downtime))
	}
	if c.Recovery > 0 {
		parts = append(parts, "recovery "+shortDur(c.Recovery))
	}
	if c.NoRestart {
		parts = append(parts, "restart_after_crash = off: the server shut down")
	}
	if c.Incomplete {
		parts = append(parts, "incomplete: "+c.IncompleteReason)
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "%s  %s\n", indent, strings.Join(parts, "; "))
	}
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
