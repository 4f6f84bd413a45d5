package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/memcg"
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

// createCgroup plans the memory cgroup, journals it, then makes it.
func (r *oomRun) createCgroup() error {
	g, err := memcg.Plan(r.fs.Sys, CgroupPrefix+strconv.Itoa(os.Getpid()), r.cfg.LimitBytes)
	if err != nil {
		return err
	}
	entry := &hostchange.Cgroup{Dir: g.Dir, Parent: g.ParentDir}
	if err := r.jr.Add(hostchange.Entry{Cgroup: entry}); err != nil {
		return err
	}
	if err := g.Make(); err != nil {
		return err
	}
	r.g, r.res.Cgroup = g, g
	if err := entry.Made(); err != nil {
		return err
	}
	return r.jr.Save()
}

// createCluster runs initdb and journals the cluster's directory.
func (r *oomRun) createCluster(ctx context.Context) error {
	c, err := pgcluster.Create(ctx, pgcluster.Options{Bin: r.opt.Bin, BaseDir: r.opt.BaseDir, Settings: r.oomSettings(), Journal: journalCluster(r.jr)})
	if err != nil {
		return err
	}
	r.c = c
	return nil
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

// moveIn moves the postmaster and its children into the cgroup, until
// none is left outside (children forked meanwhile are born inside once
// the postmaster is in).
func (r *oomRun) moveIn() error {
	for i := 0; i < 20; i++ {
		in := map[int]bool{}
		for _, p := range r.g.Procs() {
			in[p] = true
		}
		moved := 0
		for _, p := range tree(r.fs, r.c.PID) {
			if in[p] {
				continue
			}
			if err := r.g.Add(p); err != nil && !errors.Is(err, syscall.ESRCH) && pgcluster.Alive(p) {
				return fmt.Errorf("move PID %d of the cluster into the memory cgroup: %w", p, err)
			}
			moved++
		}
		if moved == 0 {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("the cluster's processes kept changing while the lab moved them into the memory cgroup")
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
