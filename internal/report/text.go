package report

import (
	"cmp"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/units"

	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/texttable"
)

// Options shape the terminal report.
type Options struct {
	// All lists every process; otherwise client backends are cut to
	// TopClients, the most expensive first.
	All        bool
	TopClients int
	// Color adds ANSI colour (only on a terminal, never with NO_COLOR).
	Color bool
	// Width is the terminal's width: tables and text are fitted to it
	// (texttable.Fit, texttable.Wrap); 0 means no limit.
	Width int
	// Findings are shown in the FINDINGS section, Skipped after them; nil
	// Findings computes both with advise.Judge and default options.
	Findings []finding.Finding
	Skipped  []advise.Skipped
	// From says the snapshot was read from a capture (--from): the header
	// then gives the capture's time and age, not the time it was read.
	From *Source
	// Budgets are the instances' memory budgets by postmaster PID
	// (internal/plan.ReportBudgets); nil shows none.
	Budgets map[int]*budget.Result
}

// Source is a capture read instead of the host.
type Source struct {
	Path       string    // the bundle as the user named it
	CapturedAt time.Time // when it was captured (its manifest)
	Now        time.Time // when it is read, for the age
}

// Text writes the human report of a snapshot.
func Text(w io.Writer, s *snapshot.Snapshot, o Options) error {
	o.TopClients = cmp.Or(o.TopClients, 10)
	st := style{on: o.Color, width: o.Width}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  host %s, kernel %s, %s\n\n", st.head("dbmem report"),
		inert.Text(units.Or(s.Host.Hostname, units.Unknown)), inert.Text(units.Or(s.Host.KernelRelease, units.Unknown)), whenText(s, o.From))
	writeHost(&b, s.Host, st)
	if len(s.Postgres) == 0 {
		b.WriteString("\n" + st.head("POSTGRESQL") + "  no running instance found (no process named postgres)\n")
	}
	for _, in := range s.Postgres {
		b.WriteString("\n")
		writeInstance(&b, in, s.Host, o, st)
	}
	writeOthers(&b, s, st)
	writePoolers(&b, s, st)
	b.WriteString("\n")
	r := findingsOf(s, o)
	writeFindings(&b, r.Findings, st)
	writeSkipped(&b, r.Skipped, st)
	writeGaps(&b, s, st)
	_, err := io.WriteString(w, texttable.Wrap(b.String(), o.Width))
	return err
}

// whenText is when the snapshot was taken: now on this host, or at
// capture time for a bundle, with its age.
func whenText(s *snapshot.Snapshot, from *Source) string {
	read := s.Elapsed.Round(time.Millisecond)
	if from == nil {
		return fmt.Sprintf("%s (read in %s)", s.TakenAt.Format("2006-01-02 15:04:05 MST"), read)
	}
	return fmt.Sprintf("captured %s (%s ago) in %s (read in %s)", from.CapturedAt.UTC().Format("2006-01-02 15:04:05 MST"),
		ageText(from.Now.Sub(from.CapturedAt)), from.Path, read)
}

// ageText is a duration for people: "42s", "3h05m", "2 days 4h".
func ageText(d time.Duration) string {
	switch {
	case d < 0:
		return "in the future: clocks differ, " + (-d).Round(time.Second).String()
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%d days %dh", int(d.Hours())/24, int(d.Hours())%24)
}

func writeGaps(b *strings.Builder, s *snapshot.Snapshot, st style) {
	var lines []string
	for _, g := range mergeProcessGaps(s.Gaps) {
		lines = append(lines, inert.Text(g.String()))
	}
	for _, in := range s.Postgres {
		for _, g := range mergeProcessGaps(in.Gaps) {
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
		for i, part := range wrapWords(strings.Fields(l), 106) {
			lead := "  - "
			if i > 0 {
				lead = "    "
			}
			fmt.Fprintf(b, "%s%s\n", lead, part)
		}
	}
}
