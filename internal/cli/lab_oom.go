package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/lab"
	"github.com/dbmem/dbmem/internal/lab/htmlreport"
)

// labOOMFlags are `dbmem lab oom`'s flags as typed.
type labOOMFlags struct {
	labCommon
	o                       lab.OOMOptions
	limit, shared, headroom string
}

func newLabOOMCmd(e *env) *cobra.Command {
	var f labOOMFlags
	cmd := &cobra.Command{
		Use:   "oom",
		Short: "Run the field report's runaway query: OOM-killed and restarted without protection, \"out of memory\" with it",
		Long: `lab oom runs the OOM experiment of the field reports against real PostgreSQL on this host.
A throwaway cluster runs in a memory cgroup the lab creates (the "machine", --limit), so the host
itself is never short of memory. Under pgbench load, one session sets work_mem to its maximum and
sorts 50 million generated rows, as in the field report.

Unprotected, the kernel's OOM killer ends that backend inside the cgroup; the postmaster terminates
every other session and reinitializes. The lab shows the kill, the sessions lost, the server's
lines, the time until it accepts queries again, TPS before, during and after, and runs dbmem
postmortem on the kernel log and the server log of that very event.

Protected the way dbmem plan advises (strict overcommit sized with its formula), the query fails
with "ERROR: out of memory" and the server and the other sessions stay up. vm.overcommit_memory is
host-wide: by default the lab EMULATES it for its own cluster only (an address-space limit on the
postmaster sized with the formula) and says so in every output. --strict-overcommit sets it for
real, only when the lab can prove it safe (nothing else on the host that could be refused memory,
CommitLimit above the highest Committed_AS seen plus --headroom plus the query's budget), for the
query's duration, journaled first (` + lab.DefaultJournalPath + `) and put back on every exit;
a killed run is undone by the next 'dbmem lab' or 'dbmem lab --restore'. Needs root.`,
		Example: `  dbmem lab oom --quick
  dbmem lab oom --html oom.html --json > oom.json
  dbmem lab oom --from oom.json --html oom.html`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd, e) },
	}
	f.define(cmd)
	return cmd
}

func (f *labOOMFlags) define(cmd *cobra.Command) {
	fl := cmd.Flags()
	f.labCommon.define(fl, &f.o.Common, "directory for the throwaway cluster (default: $TMPDIR or /tmp)", "small and fast (under 2 minutes): for CI")
	fl.StringVar(&f.limit, "limit", "", "memory cgroup limit: the machine's memory (default 2GB; 1GB with --quick)")
	fl.StringVar(&f.shared, "shared-buffers", "", "shared_buffers (default: a fifth of --limit, as 1 GB on the field report's 5 GB)")
	fl.IntVar(&f.o.Clients, "clients", 0, "pgbench clients (default 4)")
	fl.IntVar(&f.o.IdleSessions, "idle", 0, "idle sessions that stand for everybody else's (default 8; 4 with --quick)")
	fl.DurationVar(&f.o.Before, "before", 0, "pgbench time before the query (default 10s; 5s with --quick)")
	fl.DurationVar(&f.o.After, "after", 0, "pgbench time after it (default 10s; 5s with --quick)")
	fl.Int64Var(&f.o.Rows, "rows", 0, "rows the runaway sort generates (default the field report's 50000000)")
	fl.BoolVar(&f.o.StrictOvercommit, "strict-overcommit", false, "set vm.overcommit_memory=2 for real for the protected run, when provably safe")
	fl.StringVar(&f.headroom, "headroom", "", "with --strict-overcommit: commit kept for everything else on the host (default 2GB)")
}

func (f *labOOMFlags) run(cmd *cobra.Command, e *env) error {
	k := labKind[lab.OOMResult]{name: "dbmem lab oom", schema: lab.OOMSchema, html: htmlreport.WriteOOM, text: lab.OOMText,
		empty: func(r *lab.OOMResult) bool { return r.Unprotected == nil && len(r.Restored) == 0 }}
	_, err := runLab(cmd, e, &f.labCommon, k, f.start)
	return err
}

// start runs the experiment.
func (f *labOOMFlags) start(ctx context.Context) (*lab.OOMResult, error) {
	var err error
	if f.o.LimitBytes, err = sizeFlag("limit", f.limit); err != nil {
		return nil, err
	}
	if f.o.SharedBuffersBytes, err = sizeFlag("shared-buffers", f.shared); err != nil {
		return nil, err
	}
	if f.o.HeadroomBytes, err = sizeFlag("headroom", f.headroom); err != nil {
		return nil, err
	}
	return lab.RunOOM(ctx, f.o)
}
