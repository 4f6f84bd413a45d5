package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/texttable"
)

// findingsOf returns the findings to show and the checks skipped: the
// caller's, or advise.Judge's with default options (the OOM ranking then
// covers database processes).
func findingsOf(s *snapshot.Snapshot, o Options) advise.Result {
	if o.Findings != nil {
		return advise.Result{Findings: o.Findings, Skipped: o.Skipped}
	}
	return advise.Judge(s, advise.Options{})
}

// Findings writes the FINDINGS section and the checks skipped (dbmem check).
func Findings(w io.Writer, r advise.Result, o Options) error {
	var b strings.Builder
	st := style{on: o.Color, width: o.Width}
	writeFindings(&b, r.Findings, st)
	writeSkipped(&b, r.Skipped, st)
	_, err := io.WriteString(w, texttable.Wrap(b.String(), o.Width))
	return err
}

// writeFindings renders findings, most severe first, each with its
// evidence, why, fix and settings.
func writeFindings(b *strings.Builder, fs []finding.Finding, st style) {
	counts := map[finding.Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
	}
	var parts []string
	for s := finding.Critical; s >= finding.Info; s-- {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	fmt.Fprintf(b, "%s  %s\n", st.head("FINDINGS"), strings.Join(parts, ", "))
	for _, f := range fs {
		writeFinding(b, f, st)
	}
}

func writeFinding(b *strings.Builder, f finding.Finding, st style) {
	sev := strings.ToUpper(f.Severity.String())
	switch f.Severity {
	case finding.Critical:
		sev = st.bad(sev)
	case finding.Warning:
		sev = st.warn(sev)
	}
	// Titles, subjects and evidence quote process names, paths and server
	// answers: inert.
	fmt.Fprintf(b, "\n  %s  %s  %s\n", sev, inert.Text(f.Title), st.dim("["+inert.Text(f.ID+", "+f.Subject)+"]"))
	for i, e := range f.Evidence {
		label := ""
		if i == 0 {
			label = "evidence"
		}
		st.wrapped(b, label, inert.Text(fmt.Sprintf("%s: %s (%s)", e.Name, e.Value, e.Source)))
	}
	st.wrapped(b, "why", inert.Text(f.Why))
	st.wrapped(b, "fix", inert.Text(f.Fix))
	for i, s := range f.Settings {
		label := ""
		if i == 0 {
			label = "set"
		}
		line := fmt.Sprintf("%s %s = %s", s.Target, s.Name, s.Value)
		if s.Unit != "" {
			line += " in " + s.Unit
		}
		st.wrapped(b, label, line+"  ("+s.Formula+")")
	}
}

// writeSkipped lists the checks that did not run and the inputs they lacked:
// a check without its numbers is not evaluated on zeros.
func writeSkipped(b *strings.Builder, sk []advise.Skipped, st style) {
	if len(sk) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s  %d (their inputs were not read; see NOT SEEN)\n", st.head("SKIPPED CHECKS"), len(sk))
	for _, s := range sk {
		st.wrapped(b, "", fmt.Sprintf("%s [%s]: no %s", s.ID, s.Subject, strings.Join(s.Missing, ", ")))
	}
}

// wrapped writes "    label     text" folded at 110 columns, or the
// terminal's width when it is narrower.
func (st style) wrapped(b *strings.Builder, label, text string) {
	const indent = 14
	width := 110
	if st.width > 0 {
		width = max(min(width, st.width), indent+20)
	}
	line := fmt.Sprintf("    %-9s ", label)
	for _, w := range strings.Fields(text) {
		if len(line) > indent && len(line)+1+len(w) > width {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = strings.Repeat(" ", indent)
		}
		if len(line) > indent {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
}
