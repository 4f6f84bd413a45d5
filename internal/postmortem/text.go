package postmortem

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dbmem/dbmem/internal/units"
)

// JSON writes the report, indented.
func JSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Text writes the report for people.
func Text(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	writeHeader(bw, r)
	writeSources(bw, r.Sources)
	for i, x := range r.Events {
		writeEvent(bw, i+1, x, r.Zone)
	}
	writeCrashes(bw, r.Crashes)
	writeOOMErrors(bw, r.OutOfMemory)
	writeAdvice(bw, r.Advice, r.Findings, r.FindingsAbout)
	for _, g := range r.Gaps {
		fmt.Fprintf(bw, "gap: %s: %s\n", g.What, g.Why)
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
	fmt.Fprintf(w, "OOM kills: %d found in %d kernel log source(s) read; times in %s", r.Kills, read, r.Zone)
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
		if kind == "" {
			kind = "database"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", kind, sourceName(s.Log), sourceResult(s))
	}
	tw.Flush()
}

func sourceName(l Log) string {
	if l.Instance != "" {
		return l.Source + " [" + l.Instance + "]"
	}
	return l.Source
}

func sourceResult(s SourceSummary) string {
	if s.State != StateRead {
		return string(s.State) + ": " + s.Why
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
	if s.Kind == KindKernel {
		parts = append(parts, plural(s.Kills, "OOM kill"))
	} else {
		parts = append(parts, plural(s.Crashes, "crash restart"), plural(s.OOMErrors, "out-of-memory error"))
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

// stamp shows a time in the report's zone, or the raw stamp.
func stamp(t time.Time, raw string) string {
	if t.IsZero() {
		if raw == "" {
			return "(no time)"
		}
		return strings.TrimSpace(raw) + " (no wall time)"
	}
	return t.Format("2006-01-02 15:04:05.000 MST")
}

func scopeTitle(s Scope) string {
	switch s.Constraint {
	case "global":
		return "global OOM (the whole machine)"
	case "memcg":
		t := "memory cgroup OOM in " + orUnknown(s.Cgroup)
		if s.LimitBytes > 0 {
			t += " (limit " + units.Bytes(s.LimitBytes) + ")"
		}
		return t
	case "":
		return "OOM of unknown scope"
	}
	return s.Constraint + " OOM"
}
