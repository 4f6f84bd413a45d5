package xray

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/texttable"
	"github.com/dbmem/dbmem/internal/units"
)

// WriteText writes the X-ray of each instance, with LogNotice once. Every
// string from the server (names, idents, roles, paths) is printed inert.
func WriteText(w io.Writer, rs []Result, width int) error {
	var b strings.Builder
	b.WriteString("MEMORY CONTEXTS (X-ray: pg_log_backend_memory_contexts)\n")
	b.WriteString("  Note: " + LogNotice + ".\n")
	for _, r := range rs {
		writeResult(&b, r, width)
	}
	_, err := io.WriteString(w, texttable.Wrap(b.String(), width))
	return err
}

func writeResult(b *strings.Builder, r Result, width int) {
	fmt.Fprintf(b, "\n  PostgreSQL %s  %s  postmaster %d", inert.Text(units.Or(r.Version, "(version unknown)")), inert.Text(r.DataDir), r.PostmasterPID)
	if r.Role != "" {
		su := ""
		if r.Superuser {
			su = ", superuser"
		}
		fmt.Fprintf(b, "  asked as %s%s", inert.Text(r.Role), su)
	}
	b.WriteString("\n")
	writeLog(b, r)
	if r.Problem != "" {
		fmt.Fprintf(b, "  Not X-rayed: %s\n", inert.Text(r.Problem))
		if r.Fix != "" {
			fmt.Fprintf(b, "  Fix: %s\n", inert.Text(r.Fix))
		}
	}
	for _, bk := range r.Backends {
		writeBackend(b, bk, width)
	}
}

func writeLog(b *strings.Builder, r Result) {
	switch {
	case r.Log.Readable():
		fmt.Fprintf(b, "  Log          %s (%s, found from %s); X-ray took %s\n", inert.Text(r.Log.Path), r.Log.Format, r.Log.Via, r.Elapsed.Round(1e6))
	case r.Log.Why != "":
		fmt.Fprintf(b, "  Log          %s", inert.Text(r.Log.Why))
		if r.Log.How != "" {
			fmt.Fprintf(b, "; read it with %s", inert.Text(r.Log.How))
		}
		b.WriteString("\n")
	}
	for _, n := range r.LogNotes {
		fmt.Fprintf(b, "  Log note     %s\n", inert.Text(n))
	}
}

func writeBackend(b *strings.Builder, bk Backend, width int) {
	fmt.Fprintf(b, "\n  pid %d  %s", bk.PID, inert.Text(who(bk)))
	if bk.Breakdown == nil {
		why := bk.Problem
		why = cmp.Or(why, "no dump was read for it (still waiting when the X-ray ended)")
		fmt.Fprintf(b, "\n    no X-ray: %s\n", inert.Text(why))
		return
	}
	m, br := bk.Measure, bk.Breakdown
	approx := ""
	if !m.Exact {
		approx = " (RssAnon: an over-estimate)"
	}
	fmt.Fprintf(b, "  private %s = Pss_Anon %s%s + VmPTE %s + VmSwap %s\n", units.Bytes(br.PrivateBytes), units.Bytes(m.PssAnonBytes), approx,
		units.Bytes(m.VmPTEBytes), units.Bytes(m.VmSwapBytes))
	fmt.Fprintf(b, "    dump of %d contexts at %s, measured %s after it\n", bk.Contexts, bk.DumpAt.Format("15:04:05.000 MST"), bk.MeasuredAfter.Round(1e5))
	writeParts(b, bk, width)
	writeLargest(b, br, width)
	writeReconcile(b, br)
	writeFixes(b, br)
}

func who(bk Backend) string {
	s := bk.Role
	if bk.User != "" || bk.Database != "" {
		s += "  " + bk.User + "@" + bk.Database
	}
	if bk.State != "" {
		s += "  " + bk.State
	}
	return s
}

func writeParts(b *strings.Builder, bk Backend, width int) {
	br := bk.Breakdown
	tb := texttable.New("GROUP", ">BYTES", ">SHARE", ">CONTEXTS", ">THEIR TOTAL", "LARGEST").Fit(width)
	estimated := false
	for _, p := range br.Parts {
		n, tot, largest := "", "", inert.Text(p.Largest)
		if p.Contexts > 0 {
			n, tot = fmt.Sprint(p.Contexts), units.Short(p.ContextsTotalBytes)
		}
		switch p.Group {
		case GroupJIT:
			largest = jitNote(bk.Measure)
		case GroupOutside:
			largest = "Pss_Anon + VmSwap less the above"
			if bk.Measure.JITLoaded {
				largest += "; with LLVM's heap (JIT loaded)"
			}
		case GroupPageTables:
			largest = "VmPTE"
		}
		bytes := units.Short(p.Bytes)
		if p.EstimatedBytes > 0 {
			bytes, estimated = "~"+bytes, true
		}
		tb.Add(p.Group.Title(), bytes, units.Percent(p.Bytes, br.PrivateBytes), n, tot, largest)
	}
	if u := br.Reconcile.UntouchedBytes; u > 0 {
		tb.Add("never touched", "-"+units.Short(u), "", "", "", "contexts' used bytes the kernel gave no page")
	}
	tb.Add("= private cost", units.Short(br.PrivateBytes), "100%", "", units.Short(br.Reconcile.ContextsTotalBytes), "")
	b.WriteString(tb.Render("    "))
	if estimated {
		b.WriteString("    ~: with children the dump sums in \"N more child contexts\" lines (it lists 100 per context), split like the listed ones\n")
	}
}

func jitNote(m *Measure) string {
	switch {
	case !m.JITKnown:
		return "pages not readable: counted in outside"
	case m.JITLoaded:
		return "libLLVM loaded: its private pages and emitted code"
	}
	return "libLLVM not loaded"
}

func writeLargest(b *strings.Builder, br *Breakdown, width int) {
	tb := texttable.New("LARGEST CONTEXTS", ">TOTAL", ">USED", "GROUP", "IDENT").Fit(width)
	for _, c := range br.Largest {
		tb.Add(strings.Repeat(" ", min(c.Depth, 4))+inert.Text(c.Name), units.Short(c.TotalBytes), units.Short(c.UsedBytes),
			c.Group.Title(), inert.Text(c.Ident))
	}
	b.WriteString(tb.Render("    "))
}

func writeReconcile(b *strings.Builder, br *Breakdown) {
	r := br.Reconcile
	fmt.Fprintf(b, "    Reconcile: the groups count the contexts' used bytes, %s (%.0f%% of Pss_Anon + VmSwap %s); their total, %s (%.0f%%), "+
		"counts every block malloc'd, some never touched.\n", units.Bytes(r.ContextsUsedBytes), 100*r.UsedRatio, units.Bytes(r.AnonBytes),
		units.Bytes(r.ContextsTotalBytes), 100*r.TotalRatio)
}

// writeFixes gives the fix of the largest group and of any group that is
// a fifth of the private cost or more.
func writeFixes(b *strings.Builder, br *Breakdown) {
	for _, p := range br.Parts {
		if p.Bytes == 0 || p.Group != br.Dominant && p.Bytes*5 < br.PrivateBytes {
			continue
		}
		lead := "Fix"
		if p.Group == br.Dominant {
			lead = "Largest"
		}
		fmt.Fprintf(b, "    %s: %s (%s): %s\n", lead, p.Group.Title(), units.Bytes(p.Bytes), p.Fix)
	}
}
