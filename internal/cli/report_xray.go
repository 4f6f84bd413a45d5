package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/xray"
)

// xrayFlags are report's --contexts and --contexts-pid.
type xrayFlags struct {
	n    int
	pids []int
}

func (f xrayFlags) on() bool { return f.n > 0 || len(f.pids) > 0 }

// check refuses what cannot be X-rayed before anything is read.
func (f xrayFlags) check(e *env) error {
	switch {
	case f.n < 0:
		return usageError{fmt.Errorf("--contexts %d: want a number of backends, 1 to %d", f.n, xray.MaxBackends)}
	case f.on() && e.from.b != nil:
		return usageError{fmt.Errorf("--contexts and --contexts-pid ask running servers: they do not go with --from")}
	case f.on() && (e.conn.Disabled || !e.fs().IsLive()):
		return usageError{fmt.Errorf("--contexts and --contexts-pid need a connection to the running server: they do not go with --no-connect, --proc, --sys or --root")}
	}
	return nil
}

// xrays runs the X-ray of the backends the flags select; notes go to
// stderr (backends left out by the cap).
func (e *env) xrays(ctx context.Context, snap *snapshot.Snapshot, f xrayFlags) ([]xray.Result, error) {
	n := f.n
	if n > xray.MaxBackends {
		fmt.Fprintf(e.stderr, "dbmem: --contexts %d: X-raying the %d most expensive client backends at most (each writes a LOG line per memory context)\n", n, xray.MaxBackends)
		n = xray.MaxBackends
	}
	ts, capped, err := xray.Select(snap.Postgres, n, f.pids)
	if err != nil {
		return nil, usageError{err}
	}
	if capped > 0 {
		fmt.Fprintf(e.stderr, "dbmem: %d backends left out of the X-ray: at most %d per run\n", capped, xray.MaxBackends)
	}
	caller, ok := e.liveConnector()
	if !ok {
		return nil, usageError{fmt.Errorf("--contexts and --contexts-pid need a connection to the running server")}
	}
	out := []xray.Result{}
	for _, t := range ts {
		out = append(out, xray.Run(ctx, t.Instance, t.PIDs, xray.Options{FS: e.fs(), Caller: caller}))
	}
	return out, nil
}

// writeXRayText appends the X-ray to the text report.
func writeXRayText(w io.Writer, rs []xray.Result, width int) error {
	if len(rs) == 0 {
		_, err := io.WriteString(w, "\nMEMORY CONTEXTS  no client backend to X-ray\n")
		return err
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	return xray.WriteText(w, rs, width)
}
