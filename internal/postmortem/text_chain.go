package postmortem

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/units"
)

func quoteLines(ls []string) string {
	q := make([]string, 0, len(ls))
	for _, l := range ls {
		q = append(q, fmt.Sprintf("%q", inert.Text(l)))
	}
	if len(q) == 0 {
		return "(the log is blank)"
	}
	return strings.Join(q, ", ")
}

// rawTime shows a time in the report's zone, else the stamp as printed.
func rawTime(t *time.Time, raw string) string {
	switch {
	case t != nil:
		return t.Format("2006-01-02 15:04:05.000 MST")
	case raw != "" && syslogStampRe.MatchString(raw):
		return inert.Text(raw) + " (year unknown)"
	case strings.HasPrefix(raw, "["):
		return inert.Text(raw) + " (no wall time)"
	case raw != "":
		return inert.Text(raw) + " (no date in the log)"
	}
	return "(no time in the log)"
}

func writeServices(w io.Writer, ss []Service) {
	if len(ss) == 0 {
		return
	}
	fmt.Fprintf(w, "\nWhat the service manager did (%d)\n", len(ss))
	for i, s := range ss {
		fmt.Fprintf(w, "  [%d] %s  %s: %s", i+1, rawTime(s.Time, s.TimeRaw), inert.Text(s.Unit), s.Fate)
		switch {
		case s.KilledBy == "kernel OOM killer":
			fmt.Fprint(w, " after the kernel's OOM killer killed a process of it")
		case s.KilledBy != "":
			fmt.Fprintf(w, " after a kill by %s", s.KilledBy)
		}
		fmt.Fprintln(w)
		if s.TiedEvent != nil {
			how := "its task_memcg is this unit"
			if s.TiedBy == "time" {
				how = "a guess by time: the kill line names no cgroup"
			}
			fmt.Fprintf(w, "      follows OOM kill %d (%s)\n", *s.TiedEvent, how)
		}
		if s.TiedKiller != nil {
			fmt.Fprintf(w, "      follows systemd-oomd's kill [%d] below\n", *s.TiedKiller)
		}
		for _, e := range s.Events {
			fmt.Fprintf(w, "      %s  %s\n", inert.Text(e.TimeRaw), inert.Text(strings.TrimSpace(messageOf(e.Line))))
		}
		writeServiceFacts(w, s)
		for _, n := range s.Notes {
			fmt.Fprintf(w, "      - %s\n", inert.Text(n))
		}
	}
}

// messageOf is what follows "systemd[1]: " in a line, or the line.
func messageOf(line string) string {
	if i := strings.Index(line, "]: "); i >= 0 {
		return line[i+3:]
	}
	return line
}

func writeServiceFacts(w io.Writer, s Service) {
	var parts []string
	if s.MemoryPeakBytes != nil {
		parts = append(parts, "memory peak "+units.Bytes(*s.MemoryPeakBytes))
	}
	if s.SwapPeakBytes != nil {
		parts = append(parts, "swap peak "+units.Bytes(*s.SwapPeakBytes))
	}
	if s.Down != nil {
		parts = append(parts, "down "+shortDur(*s.Down))
	} else if s.Fate != FateKeptRunning {
		parts = append(parts, "down: "+notInLog+" (no start after it)")
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "      %s\n", strings.Join(parts, "; "))
	}
}

func writeKillers(w io.Writer, ks []Killer) {
	if len(ks) == 0 {
		return
	}
	fmt.Fprintf(w, "\nOther killers (%d): kills the kernel's OOM killer did not choose\n", len(ks))
	for i, k := range ks {
		db := ""
		if k.Database {
			db = "  (a database)"
		}
		v := verb(k.Action)
		if k.Killer == "earlyoom" {
			v = "signalled"
		}
		what := fmt.Sprintf("%s %s %s%s", k.Killer, v, inert.Text(units.Or(k.Victim, "(not named in the log)")), db)
		if k.Action == "panic" {
			what = "the kernel panicked (" + k.Reason + ")"
		}
		fmt.Fprintf(w, "  [%d] %s  %s\n", i+1, rawTime(k.Time, k.TimeRaw), what)
		fmt.Fprintf(w, "      %s\n", inert.Text(k.Why))
		if k.Outcome != "" {
			fmt.Fprintf(w, "      then: %s\n", inert.Text(k.Outcome))
		}
	}
}

func writeMemoryErrors(w io.Writer, es []MemoryError, ts []Termination, rs []ServerReady) {
	if len(es) > 0 {
		fmt.Fprintf(w, "\nMySQL/MariaDB and Oracle memory errors (%d)\n", len(es))
		for _, e := range es {
			where := ""
			if e.Process != "" {
				where = " in " + inert.Text(e.Process)
				if e.PID != nil {
					where += fmt.Sprintf(" (pid %d)", *e.PID)
				}
			}
			fmt.Fprintf(w, "  %s  %s%s: %s\n", dbTime(e.Time, e.TimeRaw, e.ZoneKnown, ""), e.Code, where, inert.Text(oneLine(e.Message, 200)))
			fmt.Fprintf(w, "      %s\n", inert.Text(e.Why))
		}
	}
	for _, t := range ts {
		pid := ""
		if t.PID != nil {
			pid = fmt.Sprintf(" (pid %d)", *t.PID)
		}
		fmt.Fprintf(w, "  %s  the instance was terminated by %s%s, error %s\n", dbTime(t.Time, t.TimeRaw, t.ZoneKnown, ""), inert.Text(t.By), pid,
			units.Or(t.Error, notInLog))
	}
	if len(rs) > 0 {
		fmt.Fprintf(w, "\nMySQL/MariaDB ready for connections (%d starts finished)\n", len(rs))
		for _, r := range rs {
			fmt.Fprintf(w, "  %s  %s\n", rawTime(r.Time, r.TimeRaw), inert.Text(r.Source))
		}
	}
}
