package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/postmortem"
	"github.com/dbmem/dbmem/internal/snapshot"
)

type postmortemFlags struct {
	kernelLogs, dbLogs []string
	since              time.Duration
	last               int
	tolerance          time.Duration
	maxBytes           int64
}

func newPostmortemCmd(e *env) *cobra.Command {
	var f postmortemFlags
	cmd := &cobra.Command{
		Use:   "postmortem",
		Short: "Explain past OOM kills: who was killed and why, what it held, whether the database restarted, what to change",
		Long: `postmortem reads the kernel log (journald's kernel messages, dmesg, /var/log/kern.log* and
/var/log/messages*, or --kernel-log files) and the server log of every PostgreSQL and MySQL/MariaDB
instance (found from its settings, or --db-log), and explains each OOM kill: when, global or memory
cgroup (which, with its limit), the process that asked for memory, the victim with its role, its
anon/file/shmem RSS, page tables and oom_score_adj, the largest processes of the kernel's task table,
and for PostgreSQL the crash restart that followed (every session ended, recovery time, the query
the killed backend ran). Kills and restarts are paired by PID (certain) or by time (said to be a
guess). A figure the log does not print is "not in the log" (null in --json), never 0. Then the
advice: what the logs show, and, only for this host's own logs, dbmem check's OOM-related findings
in their own section (a file given with --kernel-log/--db-log is another host's unless its lines
name this host).

Big logs are read from their end (--max-log-bytes each); pipes and FIFOs are read until their writer
closes them (for at most 30 s); lines over 1 MiB are skipped and counted. Sources read,
missing or empty are listed.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := runPostmortem(cmd.Context(), e, f)
			if err != nil {
				return err
			}
			if e.json {
				return postmortem.JSON(e.stdout, r)
			}
			return postmortem.Text(e.stdout, r)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.kernelLogs, "kernel-log", nil, "kernel log files to read instead of journalctl, dmesg and /var/log/kern.log* (dmesg, journalctl or syslog text)")
	fl.StringSliceVar(&f.dbLogs, "db-log", nil, "PostgreSQL or MySQL/MariaDB log files to read instead of those found from the instances")
	fl.DurationVar(&f.since, "since", 0, "only kills in this last period (e.g. 24h); with --from, before the capture")
	fl.IntVar(&f.last, "last", 10, "explain only the last N kills (0: all)")
	fl.DurationVar(&f.tolerance, "tolerance", postmortem.DefaultTolerance, "how far apart a kill and a database restart may be logged to be paired by time")
	fl.Int64Var(&f.maxBytes, "max-log-bytes", postmortem.DefaultMaxBytes, "read at most this much from the end of each log file")
	return cmd
}

func runPostmortem(ctx context.Context, e *env, f postmortemFlags) (*postmortem.Report, error) {
	so := e.snapshotOptions()
	fs := so.FS
	in := postmortem.Input{Tolerance: f.tolerance, Last: f.last}
	if err := e.guardOptions(&so); err != nil { // a unit's OOMPolicy decides the service's fate
		return nil, err
	}
	snap, err := snapshot.Take(ctx, so)
	if err != nil {
		in.Gaps = append(in.Gaps, linux.Gap{What: "snapshot of the host (roles of running processes, advice)", Why: err.Error(), Kind: linux.KindOf(err)})
	} else {
		in.Snapshot, in.Gaps = snap, append(in.Gaps, snap.Gaps...)
		procs, _, _ := plan.HostProcesses(fs)
		in.Findings = e.judge(snap, procs, advise.Options{}).Findings
		in.Hugetlb = hugetlbOf(fs, snap)
	}
	in.BootTime, _ = linux.BootTime(fs)
	now := time.Now()
	if b := e.from.b; b != nil {
		logs, err := b.Logs()
		if err != nil {
			return nil, err
		}
		in.Logs, in.Zone, now = replaceLogs(ctx, logs, f), b.Manifest.Zone, b.Manifest.CapturedAt
		in.ThisHost = postmortem.HostID{Name: b.Manifest.Host, Kernel: b.Manifest.Kernel}
		in.FindingsAbout = "the host as captured at " + now.UTC().Format("2006-01-02 15:04:05 MST")
	} else {
		in.Logs, in.Zone = gatherLive(ctx, fs, in.Snapshot, f)
		in.ThisHost = thisHost(fs)
		in.FindingsAbout = "this host as it is now"
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted while reading the logs: %w", err)
	}
	if f.since > 0 {
		in.Since = now.Add(-f.since)
	}
	return postmortem.Analyze(in), nil
}

// thisHost names the host behind fs: its host name and kernel release.
func thisHost(fs linux.FS) postmortem.HostID {
	name, _ := linux.ReadSysctl(fs, "kernel.hostname")
	kernel, _ := linux.KernelRelease(fs)
	return postmortem.HostID{Name: name, Kernel: kernel}
}

// hugetlbOf reads the hugetlb cgroup limits of each PostgreSQL instance's
// postmaster (to confirm the cause of a bus error).
func hugetlbOf(fs linux.FS, snap *snapshot.Snapshot) []postmortem.HugetlbLimits {
	var out []postmortem.HugetlbLimits
	for _, in := range snap.Postgres {
		if in.PostmasterPID > 0 {
			out = append(out, postmortem.ReadHugetlb(fs, in.PostmasterPID, advise.PostgresSubject(in), snap.Host.PoolPageSizes())...)
		}
	}
	return out
}

// gatherLive reads the host's logs.
func gatherLive(ctx context.Context, fs linux.FS, snap *snapshot.Snapshot, f postmortemFlags) ([]postmortem.Log, string) {
	_, zone := postmortem.HostZone(fs)
	o := postmortem.GatherOptions{FS: fs, KernelLogs: f.kernelLogs, DBLogs: f.dbLogs, MaxBytes: f.maxBytes, Zone: zone}
	if snap != nil {
		o.Postgres, o.MySQL = snap.Postgres, snap.MySQL
	}
	return postmortem.Gather(ctx, o), zone
}

// replaceLogs swaps the bundle's kernel or database logs for the files
// given with --kernel-log / --db-log.
func replaceLogs(ctx context.Context, logs []postmortem.Log, f postmortemFlags) []postmortem.Log {
	if len(f.kernelLogs) == 0 && len(f.dbLogs) == 0 {
		return logs
	}
	var out []postmortem.Log
	for _, l := range logs {
		isKernel := l.Kind == postmortem.KindKernel
		if (isKernel && len(f.kernelLogs) == 0) || (!isKernel && len(f.dbLogs) == 0) {
			out = append(out, l)
		}
	}
	return append(out, postmortem.ReadGiven(ctx, f.kernelLogs, f.dbLogs, f.maxBytes)...)
}
