package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/audit"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/growth"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/report"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// checkSchema versions `dbmem check --json`. v2: "skipped" lists the
// checks whose inputs were not read (they are not evaluated on zeros), and
// evidence says "unknown" for a number that was not read.
const checkSchema = "dbmem.check/v2"

type checkDoc struct {
	Schema   string            `json:"schema"`
	Host     string            `json:"host"`
	TakenAt  time.Time         `json:"taken_at"`
	Findings []finding.Finding `json:"findings"`
	Skipped  []advise.Skipped  `json:"skipped"`
	Gaps     []linux.Gap       `json:"gaps,omitempty"`
}

func newCheckCmd(e *env) *cobra.Command {
	var o advise.Options
	var exitAt, minSev string
	var fast bool
	var hist, htmlOut string
	var g growth.Options
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Find what will hurt this host's databases: huge pages, page tables, OOM, overcommit, swap, THP",
		Long: `check reads the host and every running PostgreSQL instance (as report does) and lists
findings, most severe first, each with the numbers read, why it matters and the fix.
Severities: info, notice, warning, critical (thresholds in docs/check-plan.md).

With a recording of 'dbmem watch --record' (--history, by default the file the
dbmem-watch-record service writes, when it exists), check also finds steady growth
(memory.growth): the roles and backends whose private cost grew steadily over the last
--growth-window, and when MemAvailable, the cgroup limit or an enforced CommitLimit
would be reached at that rate.

--html FILE also writes the HTML audit (as report --html does, with the budget): one
self-contained page to hand on, the findings ranked by bytes at stake (docs/audit.md).

Exit codes: 0 ok, 1 error, 2 usage, 3 findings at or above --exit-code's severity.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if o.MinSeverity, err = parseSeverityFlag("min-severity", minSev); err != nil {
				return err
			}
			if exitAt != "" {
				if _, err := parseSeverityFlag("exit-code", exitAt); err != nil {
					return err
				}
			}
			if g.Window <= 0 || g.MinSpan <= 0 || g.MinSpan > g.Window {
				return usageError{fmt.Errorf("--growth-window and --growth-min-span must be positive, the span within the window")}
			}
			e.conn.Work = htmlOut != "" // the audit's budget reads spills and roles' settings
			so := e.snapshotOptions()
			if err := e.guardOptions(&so); err != nil { // systemd units, oomd, earlyoom, panic_on_oom
				return err
			}
			so.Method = fastMethod(fast)
			snap, err := snapshot.Take(cmd.Context(), so)
			if err != nil {
				return err
			}
			r, gaps, err := e.judgeHost(snap, o)
			if err != nil {
				return err
			}
			if e.from.b == nil {
				growthFindings(cmd.Context(), &r, hist, cmd.Flags().Changed("history"), g, time.Now())
			}
			if err := writeCheck(e, snap, r, append(snap.Gaps, gaps...)); err != nil {
				return err
			}
			if htmlOut != "" {
				in := audit.Input{Command: "dbmem check", Snapshot: snap, Findings: r.Findings, Skipped: r.Skipped,
					Budgets: plan.ReportBudgets(e.fs(), snap, plan.BudgetOptions{Profile: "web"})}
				if err := writeAudit(cmd.Context(), e, htmlOut, in); err != nil {
					return err
				}
			}
			return exitForFindings(r.Findings, exitAt)
		},
	}
	f := cmd.Flags()
	f.StringVar(&exitAt, "exit-code", "", "exit 3 when a finding is at or above this severity (info, notice, warning, critical)")
	f.StringVar(&minSev, "min-severity", "info", "list only findings at or above this severity")
	f.IntVar(&o.NodesPerQuery, "nodes", advise.DefaultNodesPerQuery, "sort/hash nodes per query assumed in the worst case")
	f.BoolVar(&o.SharedHost, "shared-host", false, "the host runs other software too: do not advise strict overcommit")
	f.StringVar(&hist, "history", defaultHistory, "a recording of 'dbmem watch --record' to find steady growth in (\"\": none)")
	f.DurationVar(&g.Window, "growth-window", 30*time.Minute, "with --history: the window a growth rate is measured over, ending now")
	f.DurationVar(&g.MinSpan, "growth-min-span", 10*time.Minute, "with --history: the least time of points a growth rate needs")
	f.StringVar(&htmlOut, "html", "", htmlFlagHelp)
	f.BoolVar(&fast, "fast", false, "skip smaps_rollup (Pss): cheaper, the backend baseline becomes an over-estimate")
	return cmd
}

func writeCheck(e *env, snap *snapshot.Snapshot, r advise.Result, gaps []linux.Gap) error {
	if e.json {
		skipped := r.Skipped
		if skipped == nil {
			skipped = []advise.Skipped{}
		}
		return writeJSON(e.stdout, checkDoc{Schema: checkSchema, Host: snap.Host.Hostname, TakenAt: snap.TakenAt, Findings: r.Findings, Skipped: skipped, Gaps: gaps})
	}
	return report.Findings(e.stdout, r, report.Options{Color: e.color(), Width: e.width()})
}

func parseSeverityFlag(flag, v string) (finding.Severity, error) {
	s, err := finding.ParseSeverity(v)
	if err != nil {
		return 0, usageError{fmt.Errorf("--%s: %v", flag, err)}
	}
	return s, nil
}

// exitForFindings returns exit code 3 when a finding reaches the severity.
func exitForFindings(fs []finding.Finding, at string) error {
	if at == "" {
		return nil
	}
	min, err := parseSeverityFlag("exit-code", at)
	if err != nil {
		return err
	}
	if w, ok := advise.Worst(fs); ok && w >= min {
		return exitError{ExitFindings}
	}
	return nil
}
