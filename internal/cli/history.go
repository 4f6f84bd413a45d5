package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/growth"
	"github.com/dbmem/dbmem/internal/history"
	"github.com/dbmem/dbmem/internal/hostchange"
)

func newHistoryCmd(e *env) *cobra.Command {
	var since, until string
	var htmlOut string
	var width int
	var g growth.Options
	cmd := &cobra.Command{
		Use:   "history FILE",
		Short: "Summarize and chart what 'dbmem watch --record FILE' recorded",
		Long: `history reads a file written by 'dbmem watch --record' and prints, for the
chosen time range, what the ticks cost, every series (host memory, commit, swap,
huge pages, each instance's private memory and connections) with its minimum,
mean, maximum, last value and a sparkline, and every finding with when it was
first and last seen. --html writes the same as a self-contained page of charts.

GROWTH lists each role and each recorded backend whose private cost grew steadily
over the last --growth-window of its series (a least-squares slope with at least
--growth-min-span of points), and when MemAvailable, the instance's cgroup limit or
CommitLimit (with vm.overcommit_memory=2) would be reached at that rate, as last
recorded; with two X-rays of a backend (watch --xray-growing), what grew.

--since and --until take a duration back from now (2h) or a time (RFC 3339,
2006-01-02T15:04:05Z).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{fmt.Errorf("history takes one FILE, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			now := time.Now()
			from, err := historyWhen(since, now)
			if err != nil {
				return usageError{fmt.Errorf("--since: %w", err)}
			}
			to, err := historyWhen(until, now)
			if err != nil {
				return usageError{fmt.Errorf("--until: %w", err)}
			}
			if g.Window <= 0 || g.MinSpan <= 0 || g.MinSpan > g.Window {
				return usageError{fmt.Errorf("--growth-window and --growth-min-span must be positive, the span within the window")}
			}
			h, err := history.Load(cmd.Context(), args[0], from, to)
			if err != nil {
				return err
			}
			h.Growing, h.GrowthWindow = h.Growth(g), g.Window
			if htmlOut != "" {
				if err := historyHTML(htmlOut, h); err != nil {
					return err
				}
			}
			if e.json {
				return writeJSON(e.stdout, h)
			}
			return history.Text(e.stdout, h, history.TextOptions{Width: width})
		},
	}
	f := cmd.Flags()
	f.StringVar(&since, "since", "", "start of the range: a duration back from now (2h) or an RFC 3339 time")
	f.StringVar(&until, "until", "", "end of the range, same forms")
	f.StringVar(&htmlOut, "html", "", "also write a self-contained HTML page of charts to this file")
	f.IntVar(&width, "width", 40, "sparkline width in characters")
	f.DurationVar(&g.Window, "growth-window", 30*time.Minute, "GROWTH: the window a growth rate is measured over, ending at each series' last point")
	f.DurationVar(&g.MinSpan, "growth-min-span", 10*time.Minute, "GROWTH: the least time of points a growth rate needs")
	return cmd
}

// historyWhen reads "" (no bound), a duration back from now, or a time.
func historyWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither a duration (2h) nor an RFC 3339 time", s)
	}
	return t, nil
}

// historyHTML writes the chart page (hostchange.WriteOutput: atomically,
// never through a link or into another user's file).
func historyHTML(path string, h *history.History) error {
	if err := hostchange.WriteOutput(path, 0o644, func(w io.Writer) error { return history.HTML(w, h) }); err != nil {
		return fmt.Errorf("write chart page: %w", err)
	}
	return nil
}
