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
	"golang.org/x/term"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/lab"
	"github.com/dbmem/dbmem/internal/lab/htmlreport"
	"github.com/dbmem/dbmem/internal/units"
)

// labFlags are `dbmem lab`'s flags as typed.
type labFlags struct {
	o             lab.Options
	sharedBuffers string
	modes         []string
	html, from    string
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
	f.StringVar(&lf.o.Bin, "pg-bin", "", "PostgreSQL binary directory (default: $DBMEM_PG_BIN, the newest /usr/lib/postgresql/*/bin)")
	f.StringVar(&lf.o.BaseDir, "dir", "", "directory for the throwaway cluster (default: $TMPDIR or /tmp; not a tmpfs)")
	f.StringVar(&lf.sharedBuffers, "shared-buffers", "", "shared_buffers (default: min(25% of MemAvailable, 1.5GB); 1GB with --quick)")
	f.IntVarP(&lf.o.Connections, "connections", "n", 0, "idle connections that each read the table (default 100; 25 with --quick)")
	f.StringSliceVar(&lf.modes, "modes", []string{"off", "on"}, "huge_pages settings to compare")
	f.IntVar(&lf.o.BenchRuns, "bench-runs", 0, "pgbench select-only runs per setting, alternating (default 2; 1 with --quick)")
	f.BoolVar(&lf.o.NoBench, "no-bench", false, "skip the pgbench runs")
	f.DurationVar(&lf.o.BenchDuration, "bench-time", 0, "length of each pgbench run (default 15s; 5s with --quick)")
	f.IntVar(&lf.o.BenchClients, "bench-clients", 0, "pgbench clients (default 4)")
	f.BoolVar(&lf.o.Quick, "quick", false, "small and fast (under 2 minutes): for CI")
	f.StringVar(&lf.html, "html", "", "also write a self-contained HTML report with charts to this file")
	f.StringVar(&lf.from, "from", "", "render a result saved with --json instead of running the lab")
	f.BoolVar(&lf.restore, "restore", false, "only undo what a killed lab or lab oom run left (journal "+lab.DefaultJournalPath+")")
}

func (lf *labFlags) run(cmd *cobra.Command, e *env) error {
	if lf.restore {
		return labRestore(cmd, e)
	}
	res, err := lf.result(cmd, e)
	if errors.Is(err, context.Canceled) {
		err = fmt.Errorf("interrupted: %w", err)
	}
	if res == nil || len(res.Modes) == 0 && len(res.Restored) == 0 {
		return err
	}
	html := func(w io.Writer) error { return htmlreport.Write(w, res) }
	text := func(w io.Writer) error { return lab.Text(w, res) }
	return errors.Join(writeLabResult(e, lf.html, html, res, text), err)
}

// writeLabResult writes a lab's result: the HTML report to htmlPath if
// set (hostchange.WriteOutput: atomically, never through a link or into
// another user's file), then JSON or text on stdout.
func writeLabResult(e *env, htmlPath string, html func(io.Writer) error, res any, text func(io.Writer) error) error {
	if htmlPath != "" {
		if err := hostchange.WriteOutput(htmlPath, 0o644, html); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "HTML report: %s\n", htmlPath)
	}
	if !e.json {
		return text(e.stdout)
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// result runs the lab, or reads a saved result with --from.
func (lf *labFlags) result(cmd *cobra.Command, e *env) (*lab.Result, error) {
	if lf.from != "" {
		return readResult(lf.from)
	}
	if lf.sharedBuffers != "" {
		b, err := units.ParseSize(lf.sharedBuffers)
		if err != nil {
			return nil, usageError{err}
		}
		lf.o.SharedBuffersBytes = b
	}
	for _, m := range lf.modes {
		lf.o.Modes = append(lf.o.Modes, lab.Mode(strings.TrimSpace(m)))
	}
	lf.o.FS = e.fs()
	lf.o.LockPath, lf.o.JournalPath = lab.DefaultLockPath, lab.DefaultJournalPath
	lf.o.Progress = lab.NewProgress(e.rawStderr, isTerminal(e.rawStderr)) // dbmem's own text, redrawn with \r
	return lab.Run(cmd.Context(), lf.o)
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

// readSaved reads a result that the lab command named what saved with
// --json, refusing another file or another schema.
func readSaved[T any](path, what, schema string, schemaOf func(*T) string) (*T, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := new(T)
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("%s: not a %s result: %w", path, what, err)
	}
	if got := schemaOf(r); got != schema {
		return nil, fmt.Errorf("%s: schema %q, want %q (written by %s --json)", path, got, schema, what)
	}
	return r, nil
}

func readResult(path string) (*lab.Result, error) {
	return readSaved(path, "dbmem lab", lab.Schema, func(r *lab.Result) string { return r.Schema })
}
