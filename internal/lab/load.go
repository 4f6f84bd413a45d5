package lab

import (
	"context"
	"fmt"

	"github.com/dbmem/dbmem/internal/units"
)

// settings are the cluster's: autovacuum off and jit off so nothing but the
// connections moves memory, and no parallel workers so each backend maps
// every page it reads itself.
func (r *run) settings() map[string]string {
	return map[string]string{
		"shared_buffers":                  fmt.Sprintf("%dkB", r.cfg.SharedBuffersBytes>>10),
		"max_connections":                 fmt.Sprint(r.cfg.MaxConnections),
		"huge_pages":                      "off",
		"jit":                             "off",
		"autovacuum":                      "off",
		"max_parallel_workers_per_gather": "0",
	}
}

// load starts the cluster with huge_pages=off, fills pgbench_accounts to
// about 80% of shared_buffers and stops it.
func (r *run) load(ctx context.Context) error {
	r.steps.begin(fmt.Sprintf("load pgbench scale %d (%s)", r.cfg.Scale, units.Bytes(r.cfg.TableBytes())), 0)
	if err := r.c.Start(ctx); err != nil {
		return err
	}
	_, err := r.c.Pgbench(ctx, "-i", "-q", "-s", fmt.Sprint(r.cfg.Scale), "-F", fmt.Sprint(Fillfactor),
		"-I", "dtgvp", "--unlogged-tables")
	if err != nil {
		return fmt.Errorf("load data: %w", err)
	}
	if err := r.c.Exec(ctx, "CHECKPOINT", "CREATE EXTENSION IF NOT EXISTS pg_prewarm"); err != nil {
		return err
	}
	if r.res.TableBytes, err = r.tableBytes(ctx); err != nil {
		return err
	}
	r.steps.end()
	return r.c.Stop(ctx)
}

func (r *run) tableBytes(ctx context.Context) (uint64, error) {
	conn, err := r.c.Connect(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int64
	err = conn.QueryRow(ctx, "SELECT pg_relation_size('pgbench_accounts')").Scan(&n)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("size of pgbench_accounts: %d, %w", n, err)
	}
	return uint64(n), nil
}
