package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// findingsOf returns the findings to show: the caller's, or advise.Check's
// with default options (the OOM ranking then covers database processes).
func findingsOf(s *snapshot.Snapshot, o Options) []advise.Finding {
	if o.Findings != nil {
		return o.Findings
	}
	return advise.Check(s, advise.Options{})
}

// Findings writes the FINDINGS section alone (dbmem check).
func Findings(w io.Writer, fs []advise.Finding, o Options) error {
	var b strings.Builder
	writeFindings(&b, fs, style{on: o.Color})
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFindings renders findings, most severe first, each with its
// evidence, why, fix and settings.
func writeFindings(b *strings.Builder, fs []advise.Finding, st style) {
	counts := map[advise.Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
	}
	var parts []string
	for s := advise.Critical; s >= advise.Info; s-- {
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

func writeFinding(b *strings.Builder, f advise.Finding, st style) {
	sev := strings.ToUpper(f.Severity.String())
	switch f.Severity {
	case advise.Critical:
		sev = st.bad(sev)
	case advise.Warning:
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
		writeWrapped(b, label, inert.Text(fmt.Sprintf("%s: %s (%s)", e.Name, e.Value, e.Source)))
	}
	writeWrapped(b, "why", inert.Text(f.Why))
	writeWrapped(b, "fix", inert.Text(f.Fix))
	for i, s := range f.Settings {
		label := ""
		if i == 0 {
			label = "set"
		}
		line := fmt.Sprintf("%s %s = %s", s.Target, s.Name, s.Value)
		if s.Unit != "" {
			line += " in " + s.Unit
		}
		writeWrapped(b, label, line+"  ("+s.Formula+")")
	}
}

// writeWrapped writes "    label     text" folded at about 110 columns.
func writeWrapped(b *strings.Builder, label, text string) {
	const indent, width = 14, 110
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
