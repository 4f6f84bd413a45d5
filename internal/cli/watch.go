package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/dbmem/dbmem/internal/history"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
	"github.com/dbmem/dbmem/internal/watch"
)

func newWatchCmd(e *env) *cobra.Command {
	var o watch.Options
	var record string
	var retention, readTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Live view of the memory numbers that move: host, PostgreSQL and MySQL instances, top processes, findings",
		Long: `watch redraws, every --interval, the host's MemAvailable, PageTables,
Committed_AS against CommitLimit, swap in/out, huge pages in use, each PostgreSQL
instance's private cost and connections, each MySQL/MariaDB server's buffer pool
(its size and the page size it is mapped in), large-page need, threads, connections
and private memory, the top processes by private cost and by oom_score, and the
findings of the diagnose engine as they appear. A number that was not read is "?".

Every tick reads only constant-time files (status, stat, oom_score); smaps_rollup
(exact Pss, a page-table walk per process) is read every --smaps-interval. Each
tick shows what it cost in CPU time.

BACKENDS lists every PostgreSQL backend as pg_activity does (pid, role, user,
database, state, age, query start, private cost, and the query, cut to the width),
most expensive first; the queries are read over the verified connection at each
tick and are never recorded nor printed in --json.

On a terminal the screen is redrawn in place, fitted to its width, and keys act:
q (or Ctrl-C) quits, p pauses, s sorts the PostgreSQL instances by the next column, + and -
change the interval, j/k (or the arrows) select a backend, x X-rays it (its memory
contexts by group, as report --contexts-pid), b hides BACKENDS, h shows help. Otherwise, or with --json, one block (one JSON
object) is printed per tick and no key is read. --record FILE keeps every tick in
an SQLite file for 'dbmem history'.

GROWTH lists the backends and roles whose private cost grows steadily (a least-squares
slope over --growth-window, with at least --growth-min-span of points and a line that
explains them), and when MemAvailable, the instance's cgroup limit or CommitLimit
(enforced with vm.overcommit_memory=2) would be reached at that rate. Two X-rays of a
growing backend (x, or --xray-growing) tell a leak from cache growth.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Interval <= 0 || o.SmapsEvery < 0 || o.Count < 0 {
				return usageError{fmt.Errorf("--interval must be positive, --smaps-interval and --count not negative")}
			}
			if o.Growth.Window <= 0 || o.Growth.MinSpan <= 0 || o.Growth.MinSpan > o.Growth.Window || o.XRayGrowing < 0 {
				return usageError{fmt.Errorf("--growth-window and --growth-min-span must be positive, the span within the window; --xray-growing not negative")}
			}
			s := e.sampler()
			s.FS.Deadlines = linux.NewDeadlines(readTimeout) // a hung read shows as a gap
			o.Out, o.JSON = e.stdout, e.json
			o.Render = watch.RenderOptions{Color: e.color(), Checking: true, Width: e.width()}
			if f, ok := e.rawStdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) && !e.json {
				o.Screen, o.Out = true, f // watch makes each frame inert itself (inert.Output)
				o.Size = func() (int, int) { return e.screenWidth(f) }
				if restore, ok := e.rawKeys(); ok {
					defer restore()
					o.Keys = e.stdin
				}
			}
			e.watchBackends(s, &o)
			if record != "" {
				st, err := history.Open(record, retention)
				if err != nil {
					return err
				}
				defer st.Close()
				o.OnFrame = func(_ *sampler.Sample, f watch.Frame) error { return st.Add(f) }
			}
			return watch.Run(cmd.Context(), s, o)
		},
	}
	f := cmd.Flags()
	f.DurationVar(&o.Interval, "interval", 2*time.Second, "time between ticks")
	f.DurationVar(&o.SmapsEvery, "smaps-interval", time.Minute, "how often to read smaps_rollup for exact private cost (0: never)")
	f.IntVar(&o.Count, "count", 0, "stop after this many ticks (0: until interrupted)")
	f.DurationVar(&readTimeout, "read-timeout", defaultReadTimeout, "abandon a read of /proc, /sys or a host file after this long; the process or file is skipped while it hangs")
	f.IntVar(&o.Top, "top", 5, "processes in each top list")
	f.StringVar(&record, "record", "", "record every tick into this SQLite file (created if missing)")
	f.DurationVar(&retention, "retention", 7*24*time.Hour, "with --record: delete samples older than this (0: keep all)")
	f.DurationVar(&o.Growth.Window, "growth-window", 30*time.Minute, "GROWTH: the window a backend's or a role's growth rate is measured over")
	f.DurationVar(&o.Growth.MinSpan, "growth-min-span", 10*time.Minute, "GROWTH: the least time of points a growth rate needs")
	f.DurationVar(&o.XRayGrowing, "xray-growing", 0, "X-ray each steadily growing backend at most this often (0: never): two X-rays tell a leak from cache growth; each writes a LOG line per memory context")
	return cmd
}
