package cli

import (
	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/report"
	"github.com/dbmem/dbmem/internal/snapshot"
)

func newReportCmd(e *env) *cobra.Command {
	var o report.Options
	var fast bool
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Show where the host's memory goes: host, huge pages, every PostgreSQL instance and process",
		Long: `report reads /proc and /sys (and, where it can connect, each PostgreSQL server's
settings) and shows the host's memory, the huge page pools, and for every running
PostgreSQL instance its shared memory segment and the page size it really uses, and
every process with RSS, Pss, page tables and OOM score. Private cost per process is
Pss_Anon + VmPTE + VmSwap: what one more such process costs.

It only reads. Run as root to see every process's Pss.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			snap, err := snapshot.Take(cmd.Context(), snapshot.Options{FS: e.fs(), Live: e.live(), Pss: !fast})
			if err != nil {
				return err
			}
			if e.json {
				return report.JSON(e.stdout, snap)
			}
			o.Color = e.color()
			return report.Text(e.stdout, snap, o)
		},
	}
	cmd.Flags().BoolVar(&o.All, "all", false, "list every process (default: the 10 most expensive client backends)")
	cmd.Flags().IntVar(&o.TopClients, "top", 10, "client backends to list when not --all")
	cmd.Flags().BoolVar(&fast, "fast", false, "skip smaps_rollup (Pss): cheap, but private cost becomes an over-estimate")
	return cmd
}
