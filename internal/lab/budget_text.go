package lab

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/units"
)

// BudgetText writes the terminal summary of a budget result.
func BudgetText(w io.Writer, r *BudgetResult) error {
	var b strings.Builder
	writeBudgetHeader(&b, r)
	if len(r.Configs) > 0 {
		g := &grid{rows: BudgetRows(r)}
		g.render(&b)
	}
	writeRunErrors(&b, r)
	writeBudgetOf(&b, r)
	b.WriteString("\n")
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "%s  %s: %s\n", passWord(c.Pass), c.Name, c.Detail)
	}
	writeRestored(&b, r.Restored, r.Notes)
	fmt.Fprintf(&b, "took %s\n", r.Elapsed.Round(time.Second))
	_, err := io.WriteString(w, b.String())
	return err
}

func passWord(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

func writeBudgetHeader(b *strings.Builder, r *BudgetResult) {
	h, c := r.Host, r.Config
	fmt.Fprintf(b, "dbmem lab budget: PostgreSQL %s, kernel %s, %d CPUs, %s RAM\n", h.PGVersion, h.KernelRelease, h.CPUs, units.Bytes(h.MemTotalBytes))
	if g := r.Cgroup; g != nil {
		fmt.Fprintf(b, "the small host: memory cgroup v%d %s, limit %s, no swap; shared_buffers %s (PGTune's RAM / 4) in every run\n",
			g.Version(), g.Path, units.Bytes(c.LimitBytes), units.Bytes(c.SharedBuffersBytes))
	}
	fmt.Fprintf(b, "workload: role %s, pgbench select-only, %d clients, at least %gs and as long as the reports; role %s, %d sessions x %d round(s) of %s over %d fact rows\n\n",
		OLTPRole, c.OLTPClients, c.RunSeconds, ReportRole, c.Reporters, c.Rounds, queryNames(c.Queries), c.FactRows)
}

func queryNames(qs []ReportQuery) string {
	var out []string
	for _, q := range qs {
		out = append(out, q.Name)
	}
	return strings.Join(out, ", ")
}

// BudgetRows is the side-by-side comparison: a header, then one row per
// figure, one column per configuration.
func BudgetRows(r *BudgetResult) [][]string {
	g := &grid{}
	head := []string{""}
	for _, c := range r.Configs {
		head = append(head, c.Name)
	}
	g.add(head...)
	add := func(label string, f func(*ConfigRun) string) {
		cells := []string{label}
		for _, c := range r.Configs {
			cells = append(cells, f(c))
		}
		g.add(cells...)
	}
	add("work_mem", func(c *ConfigRun) string { return settingOr(c, "work_mem", "4MB (default)") })
	add("work_mem of role "+ReportRole, func(c *ConfigRun) string { return roleSetting(c, ReportRole) })
	add("max_connections", func(c *ConfigRun) string { return settingOr(c, "max_connections", "100") })
	add("peak private (Pss_Anon+VmPTE)", func(c *ConfigRun) string { return units.BytesOr(c.PeakPrivateBytes, "-") })
	add("dbmem's budget", func(c *ConfigRun) string { return units.BytesOr(c.BudgetBytes, "-") })
	add("cgroup peak", func(c *ConfigRun) string { return units.BytesOr(c.CgroupPeakBytes, "-") })
	add("temp bytes", func(c *ConfigRun) string { return tempCell(c) })
	add("OOM kills", func(c *ConfigRun) string { return countOr(c.OOMKills) })
	add(`"out of memory" errors`, func(c *ConfigRun) string { return fmt.Sprint(c.OutOfMemoryErrors) })
	add("OLTP TPS (transactions)", func(c *ConfigRun) string { return fmt.Sprintf("%.0f (%d)", c.OLTP.TPS, c.OLTP.Transactions) })
	for i := range r.Config.Queries {
		add(r.Config.Queries[i].Name+": done, mean", func(c *ConfigRun) string { return queryCell(c, i) })
	}
	return g.rows
}

func settingOr(c *ConfigRun, name, dflt string) string {
	for _, s := range c.Settings {
		if s.Name == name {
			return s.Value
		}
	}
	return dflt
}

func roleSetting(c *ConfigRun, role string) string {
	for _, s := range c.RoleSettings {
		if s.Role == role && s.Name == "work_mem" {
			return s.Value
		}
	}
	return "-"
}

func countOr(v *uint64) string {
	if v == nil {
		return "unknown"
	}
	return fmt.Sprint(*v)
}

func tempCell(c *ConfigRun) string {
	if c.TempBytes == nil {
		return "unknown"
	}
	return fmt.Sprintf("%s (%d files)", units.Bytes(*c.TempBytes), *c.TempFiles)
}

func queryCell(c *ConfigRun, i int) string {
	if i >= len(c.Queries) {
		return "-"
	}
	q := c.Queries[i]
	s := fmt.Sprintf("%d, %.1fs", q.Completed, q.MeanSeconds)
	if q.Failed > 0 {
		s += fmt.Sprintf(" (%d failed)", q.Failed)
	}
	return s
}

// writeBudgetOf says what dbmem's budget rests on.
func writeBudgetOf(b *strings.Builder, r *BudgetResult) {
	x := r.Budget
	if x == nil {
		return
	}
	fmt.Fprintf(b, "\ndbmem's budget (measured during %s): limit %s (%s), total %s, %d active sessions (%s)\n",
		ConfigSmall, units.Bytes(x.LimitBytes), x.LimitSource, units.Bytes(x.TotalBytes), x.Concurrency, x.ConcurrencySource)
	for _, ro := range x.Roles {
		if ro.Proposed != "" {
			fmt.Fprintf(b, "  role %q: work_mem %s: %s\n", ro.Name, ro.Proposed, ro.Formula)
		}
	}
}

// writeRunErrors says what failed in each run: pgbench, a query, the run.
func writeRunErrors(b *strings.Builder, r *BudgetResult) {
	for _, c := range r.Configs {
		if c.OLTP.Error != "" {
			fmt.Fprintf(b, "%s: %s\n", c.Name, c.OLTP.Error)
		}
		for _, q := range c.Queries {
			if q.FirstError != "" {
				fmt.Fprintf(b, "%s: %s failed %d times, first: %s\n", c.Name, q.Name, q.Failed, q.FirstError)
			}
		}
		if c.Error != "" {
			fmt.Fprintf(b, "%s: %s\n", c.Name, c.Error)
		}
	}
}
