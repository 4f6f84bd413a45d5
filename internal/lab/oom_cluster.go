package lab

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/units"
)

// oomSettings are the cluster's: small, no autovacuum or parallel query or
// JIT (nothing but the load and the runaway query moves memory), and
// restart_after_crash on, PostgreSQL's default.
func (r *oomRun) oomSettings() map[string]string {
	c := r.cfg
	return map[string]string{
		"shared_buffers":                  fmt.Sprintf("%dMB", c.SharedBuffersBytes>>20),
		"max_connections":                 strconv.Itoa(c.Clients + c.IdleSessions + 10),
		"huge_pages":                      "off",
		"jit":                             "off",
		"autovacuum":                      "off",
		"max_parallel_workers_per_gather": "0",
		"restart_after_crash":             "on",
		"log_line_prefix":                 "%m [%p] ",
	}
}

// start starts the server, with an address-space limit when asLimit is
// not 0, and moves it with every process it started into the cgroup.
func (r *oomRun) start(ctx context.Context, asLimit uint64) error {
	var err error
	if asLimit == 0 {
		err = r.c.Start(ctx)
	} else {
		err = r.startLimited(ctx, asLimit)
	}
	if err != nil {
		return err
	}
	return r.moveIn()
}

// startLimited starts pg_ctl from a shell that lowers its own RLIMIT_AS
// first (lowering needs no privilege; setting another process's limit
// with prlimit needs CAP_SYS_RESOURCE): the postmaster and every backend
// it forks inherit it.
func (r *oomRun) startLimited(ctx context.Context, limit uint64) error {
	c := r.c
	if err := pgcluster.CheckBin(c.Bin, "pg_ctl"); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", `ulimit -v "$1" && shift && exec "$@"`, "sh", strconv.FormatUint(limit>>10, 10),
		filepath.Join(c.Bin, "pg_ctl"), "-D", c.DataDir, "-l", c.LogFile, "-w", "-t", "180", "start")
	cmd.Dir, cmd.Env = c.Dir, pgcluster.Env()
	if r.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pg_ctl start with an address-space limit of %s: %w: %s\nserver log:\n%s",
			units.Bytes(limit), err, strings.TrimSpace(string(out)), c.LogTail(10))
	}
	return c.Started()
}

// load fills pgbench's tables for the load.
func (r *oomRun) load(ctx context.Context) error {
	_, err := r.c.Pgbench(ctx, "-i", "-q", "-s", strconv.Itoa(r.cfg.Scale))
	return err
}

// measureBaseline reads what the cluster has committed under load and
// a new backend's address space, for the emulation's formula.
func (r *oomRun) measureBaseline(freshBackend int) {
	pids := tree(r.fs, r.c.PID)
	shared := sharedSegment(r.fs, r.c.PID)
	r.base.clusterCommit = committedBy(r.fs, pids, shared)
	if m, err := procStatus(r.fs, freshBackend, "VmSize"); err == nil {
		r.base.backendVmSize = m["VmSize"]
	}
	r.base.ok = r.base.backendVmSize > 0 && shared > 0
}
