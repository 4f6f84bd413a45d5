package postmortem

import (
	"fmt"
	"io"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/units"
)

func writeCrashes(w io.Writer, cs []Crash) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nDatabase crash restarts without a matching OOM kill (%d)\n", len(cs))
	for _, c := range cs {
		fmt.Fprintf(w, "  %s\n", stamp(c.Time, c.TimeRaw))
		writeCrash(w, c, "  ")
	}
}

func writeOOMErrors(w io.Writer, es []OOMError) {
	if len(es) == 0 {
		return
	}
	fmt.Fprintf(w, "\nPostgreSQL \"out of memory\" errors (%d): an allocation failed, only that query or session ended\n", len(es))
	for _, e := range es {
		fmt.Fprintf(w, "  %s  %s pid %d", stamp(e.Time, e.TimeRaw), e.Severity, e.PID)
		if e.RequestBytes > 0 {
			fmt.Fprintf(w, ": request of %s in %q", units.Bytes(e.RequestBytes), e.Context)
		}
		if e.Largest != "" {
			fmt.Fprintf(w, "; largest context %s %s of %s", e.Largest, units.Bytes(e.LargestBytes), units.Bytes(e.GrandTotal))
		}
		fmt.Fprintln(w)
		if e.Query != "" {
			fmt.Fprintf(w, "    query: %s\n", oneLine(e.Query, 300))
		}
	}
}

func writeAdvice(w io.Writer, as []Advice, fs []advise.Finding, about string) {
	if len(as) > 0 {
		fmt.Fprintln(w, "\nWhat these events show")
	}
	for _, a := range as {
		fmt.Fprintf(w, "  %s (events %v)\n    why: %s\n    fix: %s\n", a.Title, a.Events, a.Why, a.Fix)
	}
	if len(fs) > 0 {
		if about == "" {
			about = "this host"
		}
		fmt.Fprintf(w, "\nWhat would have prevented it (dbmem check's findings on OOM risk, for %s)\n", about)
	}
	for _, f := range fs {
		fmt.Fprintf(w, "  %-8s %s  %s: %s\n", f.Severity, f.ID, f.Subject, f.Title)
		if f.Fix != "" {
			fmt.Fprintf(w, "           fix: %s\n", f.Fix)
		}
	}
}
