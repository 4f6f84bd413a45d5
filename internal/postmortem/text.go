package postmortem

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/units"
)

// notInLog is how text output says a figure was not printed.
const notInLog = "not in the log"

// JSON writes the report, indented. Figures the logs did not give are
// null; strings are escaped by encoding/json.
func JSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Text writes the report for people. Every string that comes from a log
// or another process is printed inert (control characters escaped).
func Text(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	writeHeader(bw, r)
	writeSources(bw, r.Sources)
	for i, x := range r.Events {
		writeEvent(bw, i+1, x, r.Zone)
	}
	writeServices(bw, r.Services)
	writeKillers(bw, r.Killers)
	writeCrashes(bw, r.Crashes)
	writeOOMErrors(bw, r.OutOfMemory)
	writeMemoryErrors(bw, r.MemoryErrors, r.Terminations, r.Ready)
	writeAdvice(bw, r.Advice)
	writeHostSection(bw, r.ThisHost, r.ThisHostWhy)
	for _, g := range r.Gaps {
		fmt.Fprintf(bw, "gap: %s: %s\n", inert.Text(g.What), inert.Text(g.Why))
	}
	return bw.Flush()
}

func writeHeader(w io.Writer, r *Report) {
	read := 0
	for _, s := range r.Sources {
		if s.Kind == KindKernel && s.State == StateRead {
			read++
		}
	}
	fmt.Fprintf(w, "OOM kills: %d found in %d kernel log source(s) read; times in %s", r.Kills, read, inert.Text(r.Zone))
	if r.Omitted > 0 {
		fmt.Fprintf(w, "; showing the last %d (--last, --since)", len(r.Events))
	}
	fmt.Fprintln(w)
}

func writeSources(w io.Writer, ss []SourceSummary) {
	fmt.Fprintln(w, "\nSources")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range ss {
		kind := string(s.Kind)
		kind = cmp.Or(kind, "database")
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", kind, inert.Text(sourceName(s.Log)), inert.Text(sourceResult(s)))
	}
	tw.Flush()
}

func sourceName(l Log) string {
	name := l.Source
	if l.Instance != "" {
		name += " [" + l.Instance + "]"
	}
	if l.Given {
		name += " (given)"
	}
	return name
}

func sourceResult(s SourceSummary) string {
	if s.State != StateRead {
		return string(s.State) + ": " + s.Why
	}
	if s.Kind == KindUnknown {
		return "not a recognised log (no line of a PostgreSQL, MySQL/MariaDB or Oracle log, nor of a service manager); first lines tried: " +
			quoteLines(s.Tried)
	}
	var parts []string
	size := units.Bytes(uint64(s.ReadBytes))
	if s.Truncated {
		size = fmt.Sprintf("last %s of %s", units.Bytes(uint64(s.ReadBytes)), units.Bytes(uint64(s.SizeBytes)))
	}
	if s.Excerpt {
		size += " (excerpt)"
	}
	parts = append(parts, size)
	switch s.Kind {
	case KindKernel, KindService:
		if s.Kind == KindKernel {
			parts = append(parts, plural(s.Kills, "OOM report"))
		}
		if s.Services > 0 || s.Kind == KindService {
			parts = append(parts, plural(s.Services, "unit incident"))
		}
		if s.Killers > 0 || s.Kind == KindService {
			parts = append(parts, plural(s.Killers, "other killer event"))
		}
	case KindOracle:
		parts = append(parts, plural(s.MemoryErrors, "memory error"))
	case KindMySQL:
		parts = append(parts, plural(s.Crashes, "crash restart"), plural(s.MemoryErrors, "memory error"))
	default:
		parts = append(parts, plural(s.Crashes, "crash restart"), plural(s.OOMErrors, "out-of-memory error"))
	}
	if s.Format != "" {
		parts = append(parts, "read from journalctl -o "+s.Format)
	}
	if s.LongLines > 0 {
		parts = append(parts, plural(s.LongLines, "over-long line")+" skipped")
	}
	return strings.Join(parts, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "s") {
		return fmt.Sprintf("%d %ses", n, what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// stamp shows a time in the report's zone, or the raw stamp and why it has
// no time.
func stamp(t *time.Time, raw, yearFrom string) string {
	if t != nil {
		return t.Format("2006-01-02 15:04:05.000 MST")
	}
	if raw == "" {
		return "(no time in the log)"
	}
	if yearFrom == yearUnknown {
		if m := syslogStampRe.FindString(raw); m != "" {
			raw = m
		}
		return inert.Text(strings.TrimSpace(raw)) + " (year unknown)"
	}
	return inert.Text(strings.TrimSpace(raw)) + " (no wall time)"
}

func scopeTitle(s Scope) string {
	switch s.Constraint {
	case "global":
		return "global OOM (the whole machine)"
	case "memcg":
		t := "memory cgroup OOM in " + inert.Text(units.Or(s.Cgroup, "(not named in the log)"))
		if s.LimitBytes != nil && !s.LimitUnlimited {
			t += " (limit " + units.Bytes(*s.LimitBytes) + ")"
		}
		return t
	case "":
		return "OOM (global or cgroup: " + notInLog + ")"
	}
	return s.Constraint + " OOM"
}

func writeHostSection(w io.Writer, h *HostSection, why string) {
	if h == nil {
		if why != "" {
			fmt.Fprintf(w, "\nThis host: nothing shown: %s.\n", inert.Text(why))
		}
		return
	}
	fmt.Fprintf(w, "\nThis host (%s), for the events of its own logs\n", inert.Text(h.About))
	for _, n := range h.Notes {
		fmt.Fprintf(w, "  - %s\n", inert.Text(n))
	}
	for _, f := range h.Findings {
		fmt.Fprintf(w, "  %-8s %s  %s: %s\n", f.Severity, f.ID, inert.Text(f.Subject), inert.Text(f.Title))
		if f.Fix != "" {
			fmt.Fprintf(w, "           fix: %s\n", inert.Text(f.Fix))
		}
	}
}
