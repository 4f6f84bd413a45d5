package postmortem

import (
	"context"
	"errors"
	"os/exec"

	"github.com/dbmem/dbmem/internal/safeexec"
	"github.com/dbmem/dbmem/internal/units"
)

// Runner runs a program and returns its standard output. Errors for a
// program that is not installed wrap exec.ErrNotFound; output over its
// budget comes with a *safeexec.TruncatedError.
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// maxOutput bounds what is kept of a command's output: its end.
const maxOutput = 64 << 20

// ExecRunner runs the program through safeexec: from the system
// directories only, with a cleared environment (LC_ALL=C for English
// messages and month names, no pager, no colours), for at most a minute,
// keeping the last 64 MiB of its output. A failure's error holds the
// start of its standard error.
func ExecRunner(ctx context.Context, name string, args ...string) ([]byte, error) {
	return safeexec.Output(ctx, safeexec.Command{Name: name, Args: args, MaxBytes: maxOutput,
		Env: []string{"SYSTEMD_PAGER=", "SYSTEMD_COLORS=0"}})
}

// ranOutput sets l from a command's output, saying when the output
// budget was hit (only the newest lines kept). It returns err without
// the budget's error.
func ranOutput(l *Log, out []byte, err error) error {
	t, ok := safeexec.Truncated(err)
	if !ok {
		return err
	}
	l.Truncated, l.SizeBytes = true, t.Total
	l.Why = "only the last " + units.Bytes(uint64(t.Kept)) + " of the " + units.Bytes(uint64(t.Total)) +
		" " + t.Program + " printed were kept (the output budget)"
	return nil
}

// notInstalled reports whether err says the program does not exist.
func notInstalled(err error) bool { return errors.Is(err, exec.ErrNotFound) }
