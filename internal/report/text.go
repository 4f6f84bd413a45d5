package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// Options shape the terminal report.
type Options struct {
	// All lists every process; otherwise client backends are cut to
	// TopClients, the most expensive first.
	All        bool
	TopClients int
	// Color adds ANSI colour (only on a terminal, never with NO_COLOR).
	Color bool
	// Findings are shown in the FINDINGS section; nil computes them with
	// advise.Check and default options.
	Findings []advise.Finding
}

// Text writes the human report of a snapshot.
func Text(w io.Writer, s *snapshot.Snapshot, o Options) error {
	if o.TopClients == 0 {
		o.TopClients = 10
	}
	st := style{on: o.Color}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  host %s, kernel %s, %s (read in %s)\n\n", st.head("dbmem report"),
		inert.Text(orDash(s.Host.Hostname)), inert.Text(orDash(s.Host.KernelRelease)),
		s.TakenAt.Format("2006-01-02 15:04:05 MST"), s.Elapsed.Round(time.Millisecond))
	writeHost(&b, s.Host, st)
	if len(s.Postgres) == 0 {
		b.WriteString("\n" + st.head("POSTGRESQL") + "  no running instance found (no process named postgres)\n")
	}
	for _, in := range s.Postgres {
		b.WriteString("\n")
		writeInstance(&b, in, s.Host, o, st)
	}
	writeOthers(&b, s, st)
	b.WriteString("\n")
	writeFindings(&b, findingsOf(s, o), st)
	writeGaps(&b, s, st)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeGaps(b *strings.Builder, s *snapshot.Snapshot, st style) {
	var lines []string
	for _, g := range s.Gaps {
		lines = append(lines, inert.Text(g.String()))
	}
	for _, in := range s.Postgres {
		for _, g := range in.Gaps {
			lines = append(lines, fmt.Sprintf("postgres %d: %s", in.PostmasterPID, inert.Text(g.String())))
		}
	}
	if !s.Pss {
		lines = append(lines, "Pss columns not read (--fast): private cost uses RssAnon, an over-estimate")
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s\n", st.head("NOT SEEN (the numbers above are incomplete where these apply)"))
	for _, l := range lines {
		fmt.Fprintf(b, "  - %s\n", l)
	}
}
