package budget

import (
	"fmt"
	"io"
	"strings"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/texttable"
	"github.com/dbmem/dbmem/internal/units"
)

// Text writes the budget for people: the limit, the lines, the settings
// beside the peers', the roles, why dbmem differs, the worst case and what
// could not be read. Every string from the server (role names) is inert.
func Text(w io.Writer, r Result, width int) error {
	var b strings.Builder
	verdict := "fits"
	if !r.Fits {
		verdict = "DOES NOT FIT"
	}
	fmt.Fprintf(&b, "BUDGET  %s: %s of the %s limit (%s), %s\n", inert.Text(r.Subject), units.Bytes(r.TotalBytes),
		units.Bytes(r.LimitBytes), r.LimitSource, verdict)
	fmt.Fprintf(&b, "  limit        %s\n", r.LimitFormula)
	fmt.Fprintf(&b, "  concurrency  %d active sessions: %s\n", r.Concurrency, r.ConcurrencySource)
	lines := texttable.New("LINE", "BYTES", "FORMULA").Fit(width)
	for _, l := range r.Lines {
		lines.Add(l.Name, units.Bytes(l.Bytes), l.Formula)
	}
	lines.Add("total", units.Bytes(r.TotalBytes), fmt.Sprintf("%s of the %s limit", units.Percent(r.TotalBytes, r.LimitBytes), units.Bytes(r.LimitBytes)))
	b.WriteString(lines.Render("  "))
	b.WriteString("\n")
	settingsText(&b, r, width)
	rolesText(&b, r, width)
	peersText(&b, r)
	b.WriteString("  WHY DBMEM DIFFERS\n")
	for _, d := range r.Differs {
		fmt.Fprintf(&b, "    - %s\n", inert.Text(d))
	}
	fmt.Fprintf(&b, "  WORST CASE %s: %s\n    %s\n", units.Bytes(r.WorstCase.Bytes), r.WorstCase.Formula, r.WorstCase.Why)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "  note: %s\n", inert.Text(n))
	}
	for _, g := range r.Gaps {
		fmt.Fprintf(&b, "  not read: %s: %s", inert.Text(g.What), inert.Text(g.Why))
		if g.Fix != "" {
			fmt.Fprintf(&b, " (%s)", inert.Text(g.Fix))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, texttable.Wrap(b.String(), width))
	return err
}

func settingsText(b *strings.Builder, r Result, width int) {
	cols := []string{"SETTING", "VALUE", "NOW"}
	for _, p := range r.Peers {
		cols = append(cols, strings.ToUpper(p.Tool))
	}
	t := texttable.New(append(cols, "FORMULA")...).Fit(width)
	for _, s := range r.Settings {
		row := []string{s.Name, s.Value, units.Or(s.Current, "-")}
		for _, p := range r.Peers {
			row = append(row, units.Or(peerString(p, s.Name), "-"))
		}
		f := s.Formula
		if s.Restart {
			f += " [restart]"
		}
		t.Add(append(row, f)...)
	}
	b.WriteString(t.Render("  "))
	b.WriteString("\n")
}

func rolesText(b *strings.Builder, r Result, width int) {
	if len(r.Roles) == 0 {
		return
	}
	t := texttable.New("ROLE", "BACKENDS", "MEDIAN", "P95", "ACTIVE", "LARGEST SPILL", "WORK_MEM", "PROPOSED", "WHY").Fit(width)
	for _, x := range r.Roles {
		spill := "-"
		if x.SpillBytes > 0 {
			spill = units.Bytes(x.SpillBytes)
		}
		t.Add(x.Name, fmt.Sprint(x.Backends), optBytes(x.BaselineMedianBytes), optBytes(x.BaselineP95Bytes), fmt.Sprint(x.Active),
			spill, units.Or(x.Current, "-"), units.Or(x.Proposed, "-"), x.Why)
	}
	b.WriteString(t.Render("  "))
	b.WriteString("\n")
}

func peersText(b *strings.Builder, r Result) {
	for _, p := range r.Peers {
		switch {
		case p.Missing != "":
			fmt.Fprintf(b, "  %s: no work_mem without %s\n", p.Tool, p.Missing)
		case p.Fits:
			fmt.Fprintf(b, "  %s (%s): %s under the same concurrency, fits\n", p.Tool, p.Profile, units.Bytes(p.TotalBytes))
		default:
			fmt.Fprintf(b, "  %s (%s): %s under the same concurrency, exceeds the limit by %s\n", p.Tool, p.Profile,
				units.Bytes(p.TotalBytes), units.Bytes(units.Sub(p.TotalBytes, r.LimitBytes)))
		}
		fmt.Fprintf(b, "    from %s\n", p.Source)
	}
}

func optBytes(b uint64) string {
	if b == 0 {
		return "-"
	}
	return units.Bytes(b)
}
