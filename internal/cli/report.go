package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/audit"
	"github.com/dbmem/dbmem/internal/measure"
	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/report"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/xray"
)

func newReportCmd(e *env) *cobra.Command {
	var o report.Options
	var fast, noBudget bool
	var method, htmlOut string
	var xf xrayFlags
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Show where the host's memory goes: host, huge pages, every PostgreSQL instance and process",
		Long: `report reads /proc and /sys (and, where it can connect, each PostgreSQL server's
settings) and shows the host's memory, the huge page pools, and for every running
PostgreSQL instance its shared memory segment and the page size it really uses, and
every process with RSS, Pss, page tables and OOM score. Private cost per process is
Pss_Anon + VmPTE + VmSwap: what one more such process costs.

--method chooses how Pss_Anon is measured:
  auto    exact fast path (pagemap + /proc/kpagecount, needs root), smaps_rollup where
          it is not possible (default)
  fast    exact fast path, status (RssAnon, an over-estimate) where it is not possible:
          never walks the page tables of shared memory
  smaps   smaps_rollup for every process: also Pss and Pss_Shmem, but it walks every
          page table entry (about 45 ms per backend with 3 GiB of shared memory touched)
  status  status only (RssAnon, an over-estimate); --fast is the same

--contexts N X-rays the N client backends with the highest private cost (at most 10;
--contexts-pid PID names one): each writes its memory contexts to the server's log
(pg_log_backend_memory_contexts, PostgreSQL 14+, superuser or GRANT EXECUTE), dbmem reads
the dump back and splits the backend's private cost into catalog caches, plan cache,
running query, JIT, other contexts and what lies outside them, each with its fix. It
adds one LOG line per memory context to the server's log.

--html FILE also writes the HTML audit: one self-contained page with charts, the findings
ranked by bytes at stake, the plan's settings, the budget and the X-ray (docs/audit.md).

It only reads. Run as root for the exact fast path.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := reportMethod(method, fast, cmd.Flags().Changed("method"))
			if err != nil {
				return err
			}
			if err := xf.check(e); err != nil {
				return err
			}
			e.conn.Work = !noBudget // the budget reads spills and roles' settings
			so := e.snapshotOptions()
			if err := e.guardOptions(&so); err != nil { // systemd units, oomd, earlyoom, panic_on_oom
				return err
			}
			so.Method = m
			snap, err := snapshot.Take(cmd.Context(), so)
			if err != nil {
				return err
			}
			var xr []xray.Result
			if xf.on() {
				if xr, err = e.xrays(cmd.Context(), snap, xf); err != nil {
					return err
				}
			}
			o.Budgets = plan.ReportBudgets(e.fs(), snap, plan.BudgetOptions{Off: noBudget, Profile: "web"})
			r, _, err := e.judgeHost(snap, advise.Options{}) // check's verdict; the process gaps are check's to list
			if err != nil {
				return err
			}
			o.Findings, o.Skipped = r.Findings, r.Skipped
			if htmlOut != "" {
				in := audit.Input{Command: "dbmem report", Snapshot: snap, Findings: r.Findings, Skipped: r.Skipped, Budgets: o.Budgets, XRay: xr}
				if err := writeAudit(cmd.Context(), e, htmlOut, in); err != nil {
					return err
				}
			}
			if e.json {
				doc := report.AddBudgets(report.DocumentFor(snap, r), snap, o.Budgets)
				doc.XRay = xr
				return report.WriteJSON(e.stdout, doc)
			}
			o.Color, o.Width = e.color(), e.width()
			if b := e.from.b; b != nil {
				o.From = &report.Source{Path: b.Path, CapturedAt: b.Manifest.CapturedAt, Now: time.Now()}
			}
			if err := report.Text(e.stdout, snap, o); err != nil || !xf.on() {
				return err
			}
			return writeXRayText(e.stdout, xr, o.Width)
		},
	}
	cmd.Flags().BoolVar(&o.All, "all", false, "list every process (default: the 10 most expensive client backends)")
	cmd.Flags().IntVar(&o.TopClients, "top", 10, "client backends to list when not --all")
	cmd.Flags().StringVar(&method, "method", string(measure.Auto), "how to measure Pss_Anon: auto, fast, smaps or status")
	cmd.Flags().IntVar(&xf.n, "contexts", 0, "X-ray the N client backends with the highest private cost: their memory contexts by group (PostgreSQL 14+; at most 10)")
	cmd.Flags().IntSliceVar(&xf.pids, "contexts-pid", nil, "X-ray this backend (repeatable)")
	cmd.Flags().BoolVar(&fast, "fast", false, "same as --method status: cheap, but private cost becomes an over-estimate")
	cmd.Flags().StringVar(&htmlOut, "html", "", htmlFlagHelp)
	cmd.Flags().BoolVar(&noBudget, "no-budget", false, "leave out each instance's memory budget (work_mem and its companions; dbmem plan shows it whole)")
	return cmd
}

// reportMethod resolves --method and its older alias --fast.
func reportMethod(method string, fast, methodSet bool) (measure.Method, error) {
	m, err := measure.Parse(method)
	if err != nil {
		return "", usageError{fmt.Errorf("--method: %w", err)}
	}
	if fast {
		if methodSet && m != measure.Status {
			return "", usageError{fmt.Errorf("--fast means --method status: it does not go with --method %s", m)}
		}
		m = measure.Status
	}
	return m, nil
}

// fastMethod is the method of a command with --fast only (check, capture):
// status with it, smaps_rollup without.
func fastMethod(fast bool) measure.Method {
	if fast {
		return measure.Status
	}
	return measure.Smaps
}
