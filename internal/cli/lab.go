package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/lab"
	"github.com/dbmem/dbmem/internal/lab/htmlreport"
)

// labFlags are `dbmem lab`'s flags as typed.
type labFlags struct {
	labCommon
	o             lab.Options
	sharedBuffers string
	modes         []string
	restore       bool
}

func newLabCmd(e *env) *cobra.Command {
	var lf labFlags
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "Measure what connections cost with huge_pages off and on, on a throwaway PostgreSQL cluster",
		Long: `lab runs the experiment of the field reports against real PostgreSQL on this host.
It creates a throwaway cluster (initdb in a temporary directory, a free port), loads
pgbench_accounts to about 80% of shared_buffers, and with huge_pages=off and then
huge_pages=on opens N connections that each read the whole table through shared_buffers
and stay idle. At each stage it waits for /proc/meminfo to settle and reads MemAvailable,
used memory, PageTables, Committed_AS, the huge page pool and every backend's RSS, Pss,
Pss_Anon, VmPTE, huge pages and oom_score. The ground truth is the fall of MemAvailable
while the connections open; it is compared with dbmem's cost (Pss_Anon + VmPTE) and with
what RSS and Pss would predict. Then pgbench select-only runs alternate off and on.

For huge_pages=on it grows vm.nr_hugepages by exactly what the cluster needs (postgres -C
shared_memory_size_in_huge_pages) and puts the old value back afterwards, also on error
or Ctrl-C. Each change is journaled first (` + lab.DefaultJournalPath + `): if the lab is
killed, the next 'dbmem lab' or 'dbmem lab --restore' undoes it. It refuses to start when
the experiment would not fit in MemAvailable with a margin. Needs root for huge_pages=on.

Defaults are sized to the host (shared_buffers = min(25% of MemAvailable, 1.5 GiB),
100 connections) and take under 10 minutes on 2 cores; --quick under 2 minutes. Larger
shared_buffers take longer: about 3 minutes more per GiB with 100 connections.`,
		Example: `  dbmem lab --quick
  dbmem lab oom --quick        # the OOM experiment: a runaway query killed, then refused memory
  dbmem lab --html lab.html
  dbmem lab --shared-buffers 4GB --json > lab.json
  dbmem lab --from lab.json --html lab.html
  dbmem lab --restore`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return lf.run(cmd, e) },
	}
	lf.define(cmd)
	cmd.AddCommand(newLabOOMCmd(e), newLabBudgetCmd(e))
	return cmd
}

func (lf *labFlags) define(cmd *cobra.Command) {
	f := cmd.Flags()
	lf.labCommon.define(f, &lf.o.Common, "directory for the throwaway cluster (default: $TMPDIR or /tmp; not a tmpfs)", "small and fast (under 2 minutes): for CI")
	f.StringVar(&lf.sharedBuffers, "shared-buffers", "", "shared_buffers (default: min(25% of MemAvailable, 1.5GB); 1GB with --quick)")
	f.IntVarP(&lf.o.Connections, "connections", "n", 0, "idle connections that each read the table (default 100; 25 with --quick)")
	f.StringSliceVar(&lf.modes, "modes", []string{"off", "on"}, "huge_pages settings to compare")
	f.IntVar(&lf.o.BenchRuns, "bench-runs", 0, "pgbench select-only runs per setting, alternating (default 2; 1 with --quick)")
	f.BoolVar(&lf.o.NoBench, "no-bench", false, "skip the pgbench runs")
	f.DurationVar(&lf.o.BenchDuration, "bench-time", 0, "length of each pgbench run (default 15s; 5s with --quick)")
	f.IntVar(&lf.o.BenchClients, "bench-clients", 0, "pgbench clients (default 4)")
	f.BoolVar(&lf.restore, "restore", false, "only undo what a killed lab or lab oom run left (journal "+lab.DefaultJournalPath+")")
}

func (lf *labFlags) run(cmd *cobra.Command, e *env) error {
	if lf.restore {
		return labRestore(cmd, e)
	}
	k := labKind[lab.Result]{name: "dbmem lab", schema: lab.Schema, html: htmlreport.Write, text: lab.Text,
		empty: func(r *lab.Result) bool { return len(r.Modes) == 0 && len(r.Restored) == 0 }}
	_, err := runLab(cmd, e, &lf.labCommon, k, lf.start)
	return err
}

// start runs the experiment.
func (lf *labFlags) start(ctx context.Context) (*lab.Result, error) {
	var err error
	if lf.o.SharedBuffersBytes, err = sizeFlag("shared-buffers", lf.sharedBuffers); err != nil {
		return nil, err
	}
	for _, m := range lf.modes {
		lf.o.Modes = append(lf.o.Modes, lab.Mode(strings.TrimSpace(m)))
	}
	return lab.Run(ctx, lf.o)
}

func labRestore(cmd *cobra.Command, e *env) error {
	done, notes, err := lab.Restore(cmd.Context(), e.fs(), lab.DefaultJournalPath, lab.DefaultLockPath)
	for _, n := range notes {
		fmt.Fprintln(e.stderr, "note: "+n)
	}
	if len(done) == 0 && err == nil {
		fmt.Fprintln(e.stdout, "nothing to restore: no journal of a killed lab run")
	}
	for _, x := range done {
		state := "restored"
		if !x.OK {
			state = "NOT restored: " + x.Error
		}
		fmt.Fprintf(e.stdout, "%s: %s -> %s -> %s (%s)\n", x.What, x.Before, x.Set, x.After, state)
	}
	return err
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && os.Getenv("TERM") != "dumb"
}

// labCommon are the flags every lab experiment has.
type labCommon struct {
	o          *lab.Common
	html, from string
}

// define defines the flags every experiment has; dir and quick are --dir's
// and --quick's help.
func (c *labCommon) define(f *pflag.FlagSet, o *lab.Common, dir, quick string) {
	c.o = o
	f.StringVar(&o.Bin, "pg-bin", "", "PostgreSQL binary directory (default: $DBMEM_PG_BIN, the newest /usr/lib/postgresql/*/bin)")
	f.StringVar(&o.BaseDir, "dir", "", dir)
	f.BoolVar(&o.Quick, "quick", false, quick)
	f.StringVar(&c.html, "html", "", "also write a self-contained HTML report with charts to this file")
	f.StringVar(&c.from, "from", "", "render a result saved with --json instead of running the experiment")
}

// labKind is what runLab needs of an experiment's result: the command
// and schema that write it (--from refuses another), when it holds
// nothing, its renderings, and what to compute again once read (nil:
// nothing).
type labKind[R any] struct {
	name, schema string
	empty        func(*R) bool
	html, text   func(io.Writer, *R) error
	loaded       func(*R)
}

// runLab runs an experiment on this host (start parses its own flags and
// runs it), or reads the result saved with --from, then writes what there
// is, also on error: the HTML report to --html (hostchange.WriteOutput:
// atomically, never through a link or into another user's file), then
// JSON or text on stdout. It returns the result written, nil if none.
func runLab[R any](cmd *cobra.Command, e *env, c *labCommon, k labKind[R], start func(context.Context) (*R, error)) (*R, error) {
	var res *R
	var err error
	if c.from != "" {
		if res, err = readSaved[R](c.from, k.name, k.schema); err == nil && k.loaded != nil {
			k.loaded(res)
		}
	} else {
		c.o.FS = e.fs()
		c.o.LockPath, c.o.JournalPath = lab.DefaultLockPath, lab.DefaultJournalPath
		c.o.Progress = lab.NewProgress(e.rawStderr, isTerminal(e.rawStderr)) // dbmem's own text, redrawn with \r
		res, err = start(cmd.Context())
	}
	if errors.Is(err, context.Canceled) {
		err = fmt.Errorf("interrupted: %w", err)
	}
	if res == nil || k.empty(res) {
		return nil, err
	}
	return res, errors.Join(writeLabResult(e, c.html, k, res), err)
}

func writeLabResult[R any](e *env, htmlPath string, k labKind[R], res *R) error {
	if htmlPath != "" {
		if err := hostchange.WriteOutput(htmlPath, 0o644, func(w io.Writer) error { return k.html(w, res) }); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "HTML report: %s\n", htmlPath)
	}
	if !e.json {
		return k.text(e.stdout, res)
	}
	return writeJSON(e.stdout, res)
}

// readSaved reads a result that the lab command named what saved with
// --json, refusing another file or another schema.
func readSaved[T any](path, what, schema string) (*T, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := new(T)
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("%s: not a %s result: %w", path, what, err)
	}
	var head struct {
		Schema string `json:"schema"`
	}
	_ = json.Unmarshal(b, &head) // b is a JSON object: r's Unmarshal took it
	if head.Schema != schema {
		return nil, fmt.Errorf("%s: schema %q, want %q (written by %s --json)", path, head.Schema, schema, what)
	}
	return r, nil
}
