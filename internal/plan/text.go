package plan

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/units"
)

// Text writes a plan for people: the arithmetic, then every setting with
// its formula.
func Text(w io.Writer, r advise.PlanResult) error {
	var b strings.Builder
	h := r.Host
	fmt.Fprintf(&b, "dbmem plan  %s\n", r.Source)
	fmt.Fprintf(&b, "  RAM %s, swap %s, %d NUMA node(s), default huge page %s\n\n",
		units.Bytes(h.RAMBytes), units.Bytes(h.SwapBytes), h.NUMANodes, units.Bytes(h.DefaultHugePageBytes))
	if hp := r.HugePages; hp != nil {
		fmt.Fprintf(&b, "HUGE PAGES   %s\n", hp.Formula)
		if len(hp.PerNode) > 0 {
			fmt.Fprintf(&b, "             per NUMA node: %v\n", hp.PerNode)
		}
	} else {
		b.WriteString("HUGE PAGES   not planned\n")
	}
	if op := r.Overcommit; op != nil {
		fmt.Fprintf(&b, "OVERCOMMIT   vm.overcommit_ratio %d: %s; CommitLimit %s\n", op.Ratio, op.Formula, units.Bytes(op.CommitLimitBytes))
	} else {
		b.WriteString("OVERCOMMIT   strict overcommit not planned\n")
	}
	for _, wc := range r.WorstCases {
		fmt.Fprintf(&b, "WORST CASE   %s: %s = %s private + %s page tables + %s shared\n", wc.Subject,
			units.Bytes(wc.TotalBytes), units.Bytes(wc.PrivateBytes), units.Bytes(wc.PageTablesBytes), units.Bytes(wc.SharedBytes))
	}
	b.WriteString("\nSETTINGS\n")
	settingsTable(&b, r.Settings)
	if len(r.Alternatives) > 0 {
		b.WriteString("\nALTERNATIVES\n")
		settingsTable(&b, r.Alternatives)
	}
	if len(r.Notes) > 0 {
		b.WriteString("\nNOTES\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func settingsTable(b *strings.Builder, s []advise.Setting) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  TARGET\tNAME\tVALUE\tNOW\tFORMULA")
	for _, x := range s {
		now := x.Current
		if now == "" {
			now = "-"
		}
		name := x.Name
		if x.Unit != "" && (x.Target == advise.TargetSystemd || x.Target == advise.TargetKubernetes) {
			name = x.Unit + ": " + name
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", x.Target, name, x.Value, now, x.Formula)
	}
	tw.Flush()
}
