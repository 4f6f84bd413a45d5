package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/postgres"
)

// Exit codes (README.md's "Exit codes", each command's man page).
const (
	ExitOK       = 0
	ExitError    = 1
	ExitUsage    = 2
	ExitFindings = 3 // check --exit-code: a finding at or above the severity
	ExitRefused  = 4 // apply, rollback, pooler set/rollback: refused, nothing changed
)

// env is what every command shares: streams and the global flags.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// rawStdout and rawStderr are the streams before inert.Writer
	// (output.go): for terminal checks and watch's screen.
	rawStdout, rawStderr io.Writer
	proc, sys            string
	root                 string
	json                 bool
	noColor              bool
	wide                 bool                 // --wide: no fitting to the terminal (width.go)
	conn                 postgres.ConnOptions // --pg-*, --no-connect
	my                   mysql.ConnOptions    // --mysql-*
	from                 fromBundle           // --from: a bundle read instead of the host (capture.go)
}

// usageError marks errors that should exit with ExitUsage.
type usageError struct{ error }

// exitError carries a chosen exit code without printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// Run runs dbmem with args (without the program name) and returns the exit
// code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, rawStdout: stdout, rawStderr: stderr}
	defer e.closeFrom()
	root := newRoot(e)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	e.flushOutput()
	var ee exitError
	var ue usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "dbmem: %s\nRun 'dbmem --help' for usage.\n", inert.Lines(err.Error()))
		return ExitUsage
	}
	fmt.Fprintf(stderr, "dbmem: %s\n", inert.Lines(err.Error())) // errors quote files and servers
	return ExitError
}

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:           "dbmem",
		Short:         "Where a database server's memory goes, what will kill it, and what to set",
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Errorf("unknown command %q", args[0])}
			}
			cmd.SetOut(e.stderr)
			cmd.Help()
			return exitError{ExitUsage}
		},
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&e.proc, "proc", "/proc", "procfs root to read (a captured tree or fixture)")
	pf.StringVar(&e.sys, "sys", "/sys", "sysfs root to read")
	pf.StringVar(&e.root, "root", "/", "root for other host files (data directories, config files)")
	pf.BoolVar(&e.json, "json", false, "write JSON (versioned schema) instead of text")
	pf.BoolVar(&e.noColor, "no-color", false, "no colour even on a terminal (NO_COLOR is honoured too)")
	pf.BoolVar(&e.wide, "wide", false, "full text and every column even on a narrow terminal (the default in a pipe)")
	e.defineConnFlags(pf)
	pf.StringVar(&e.from.path, "from", "", "read a bundle written by 'dbmem capture' instead of this host")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		e.inertOutput()
		if err := checkFlags(cmd); err != nil { // flagcheck.go
			return err
		}
		return e.openFrom(cmd)
	}
	for _, c := range []*cobra.Command{newReportCmd(e), newCheckCmd(e), newPlanCmd(e), newApplyCmd(e), newRollbackCmd(e), newLabCmd(e), newWatchCmd(e), newHistoryCmd(e), newExporterCmd(e), newPostmortemCmd(e), newCaptureCmd(e), newHelperCmd(e), newPoolerHelperCmd(e), newPoolerCmd(e)} {
		root.AddCommand(c)
	}
	registerCompletions(root)
	addExamples(root)
	return root
}

// noArgs rejects positional arguments as a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("%q takes no arguments, got %q", cmd.CommandPath(), args[0])}
	}
	return nil
}

// fs returns the roots chosen with --proc, --sys and --root, or the --from bundle's.
func (e *env) fs() linux.FS {
	if e.from.b != nil {
		return e.from.b.FS()
	}
	return linux.FS{Proc: e.proc, Sys: e.sys, Root: e.root}
}

// color reports whether to colour output: a terminal, no NO_COLOR, no --no-color.
func (e *env) color() bool {
	if e.noColor || e.json || os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := e.rawStdout.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
