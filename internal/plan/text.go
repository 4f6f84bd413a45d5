package plan

import (
	"fmt"
	"io"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/texttable"
	"github.com/dbmem/dbmem/internal/units"
)

// Text writes a plan for people: the arithmetic, then every setting with
// its formula.
func Text(w io.Writer, r advise.PlanResult) error {
	return TextWidth(w, r, 0)
}

// TextWidth is Text fitted to width columns (0: no limit): long lines
// wrap, the settings' formulas wrap in their column.
func TextWidth(w io.Writer, r advise.PlanResult, width int) error {
	var b strings.Builder
	h := r.Host
	fmt.Fprintf(&b, "dbmem plan  %s\n", r.Source)
	page := "unknown"
	if h.DefaultHugePageBytes > 0 {
		page = units.Bytes(h.DefaultHugePageBytes)
	}
	swap := units.Bytes(h.SwapBytes)
	if h.SwapUnknown != "" {
		swap = units.Unknown
	}
	fmt.Fprintf(&b, "  RAM %s, swap %s, %d NUMA node(s), default huge page %s\n\n",
		units.Bytes(h.RAMBytes), swap, h.NUMANodes, page)
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
	} else if h.SwapUnknown != "" {
		b.WriteString("OVERCOMMIT   not planned: the swap is unknown (NOT PLANNED below)\n")
	} else {
		b.WriteString("OVERCOMMIT   strict overcommit not planned\n")
	}
	worstCases(&b, r)
	if r.Budget != nil {
		b.WriteString("\n")
		budget.Text(&b, *r.Budget, width)
	}
	settingsByInstance(&b, r.Settings, width) // text_instances.go
	if len(r.Alternatives) > 0 {
		b.WriteString("\nALTERNATIVES\n")
		settingsTable(&b, r.Alternatives, width)
	}
	if len(r.NotPlanned) > 0 {
		b.WriteString("\nNOT PLANNED (an input is missing)\n")
		for _, n := range r.NotPlanned {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	if len(r.Notes) > 0 {
		b.WriteString("\nNOTES\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	_, err := io.WriteString(w, texttable.Wrap(b.String(), width))
	return err
}

// worstCases writes each instance's worst case under the plan, and, where
// it differs, as the instance runs now (what dbmem check shows): the page
// tables of shared memory depend on the page size.
func worstCases(b *strings.Builder, r advise.PlanResult) {
	if len(r.WorstCases) == 0 {
		return
	}
	if hp := r.HugePages; hp != nil {
		fmt.Fprintf(b, "WORST CASE (with the planned huge pages of %s)\n", units.Bytes(hp.PageSizeBytes))
	} else {
		b.WriteString("WORST CASE (without huge pages)\n")
	}
	for _, wc := range r.WorstCases {
		fmt.Fprintf(b, "  %s: %s\n", wc.Subject, worstCaseSum(wc.WorstCase, wc.SharedName))
		if wc.Now != nil {
			fmt.Fprintf(b, "    now %s: %s\n", worstCaseSum(*wc.Now, wc.SharedName), wc.NowBasis)
		}
	}
}

func worstCaseSum(w advise.WorstCase, shared string) string {
	if shared == "" {
		shared = "shared"
	}
	return fmt.Sprintf("%s = %s private + %s page tables + %s %s", units.Bytes(w.TotalBytes),
		units.Bytes(w.PrivateBytes), units.Bytes(w.PageTablesBytes), units.Bytes(w.SharedBytes), shared)
}

func settingsTable(b *strings.Builder, s []finding.Setting, width int) {
	t := texttable.New("TARGET", "NAME", "VALUE", "NOW", "FORMULA").Fit(width)
	for _, x := range s {
		now := x.Current
		if now == "" {
			now = "-"
		}
		name := x.Name
		if x.Role != "" {
			name = fmt.Sprintf("role %q: %s", x.Role, name)
		}
		if x.Unit != "" && x.Target != finding.TargetSysctl && x.Target != finding.TargetSysfs {
			name = x.Unit + ": " + name
		}
		t.Add(string(x.Target), name, x.Value, now, x.Formula)
	}
	b.WriteString(t.Render("  "))
}
