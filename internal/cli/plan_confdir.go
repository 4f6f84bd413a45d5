package cli

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/apply"
	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/postgres"
)

// planConfDir is the include_dir --format postgresql writes into: that of
// the cluster planned, never another's. --data-dir is the stopped
// cluster's own; a running one must be chosen (--pg-port) when several
// run; a cluster without include_dir is refused, naming the fix.
func planConfDir(e *env, req plan.Request) (string, error) {
	if req.DataDir != "" {
		dir, err := apply.PostgresConfDir(e.fs(), &postgres.Instance{DataDir: req.DataDir})
		if err != nil {
			return "", usageError{fmt.Errorf("--format postgresql for --data-dir %s: %w; or give --conf-dir", req.DataDir, err)}
		}
		return dir, nil
	}
	var chosen []*postgres.Instance
	for _, in := range req.Snapshot.Postgres {
		if req.Port == 0 || in.Port == req.Port {
			chosen = append(chosen, in)
		}
	}
	switch {
	case len(chosen) == 0:
		return "", nil
	case len(chosen) > 1:
		return "", usageError{fmt.Errorf("--format postgresql: %d PostgreSQL instances run here, each with its own configuration: choose one with --pg-port (or give --conf-dir)", len(chosen))}
	}
	dir, err := apply.PostgresConfDir(e.fs(), chosen[0])
	if err != nil {
		return "", usageError{fmt.Errorf("--format postgresql for %s: %w; or give --conf-dir", chosen[0].DataDir, err)}
	}
	return dir, nil
}
