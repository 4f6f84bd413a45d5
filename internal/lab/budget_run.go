package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// budgetRun is one `lab budget` run's state.
type budgetRun struct {
	core
	opt   BudgetOptions
	cfg   BudgetConfig
	res   *BudgetResult
	major int
	// statements is true when pg_stat_statements is preloaded.
	statements bool
}

// RunBudget runs the budget experiment: a throwaway cluster in a memory
// cgroup the size of a small host runs a mixed workload (an OLTP role's
// pgbench clients, a reporting role's sorts and hash joins) under a
// uniformly small work_mem (the measuring run, and the temp-bytes
// baseline), under dbmem's budget computed from that measurement by
// plan's code path, and under PGTune's settings for the host. Every
// change to the host is journaled before it is made and undone before
// RunBudget returns, also when ctx is cancelled or on SIGHUP; a run
// killed outright is undone by the next `dbmem lab` or `dbmem lab
// --restore`.
func RunBudget(ctx context.Context, o BudgetOptions) (*BudgetResult, error) {
	r := newBudgetRun(o)
	err := r.runLocked(ctx, r)
	return r.res, err
}

func newBudgetRun(o BudgetOptions) *budgetRun {
	res := &BudgetResult{Schema: BudgetSchema, Configs: []*ConfigRun{}, Checks: []Check{}}
	k := newCore(&o.Common, fields{&res.StartedAt, &res.FinishedAt, &res.Elapsed, &res.Steps, &res.Restored, &res.Notes})
	return &budgetRun{core: k, opt: o, res: res}
}

// prepare checks what the experiment needs, then makes the cgroup and the
// cluster and loads the data.
func (r *budgetRun) prepare(ctx context.Context) error {
	if os.Geteuid() != 0 {
		return errors.New("dbmem lab budget needs root: it creates a memory cgroup and moves its cluster into it")
	}
	h, m, err := labHost(r.fs)
	if err != nil {
		return err
	}
	r.res.Host = h
	if r.cfg, err = ResolveBudget(r.opt); err != nil {
		return err
	}
	r.res.Config = r.cfg
	if err := r.checkTools(); err != nil {
		return err
	}
	if err := cgroupFits(m, r.cfg.LimitBytes); err != nil {
		return err
	}
	return r.create(ctx)
}

// checkTools finds PostgreSQL, pgbench and pg_stat_statements.
func (r *budgetRun) checkTools() error {
	t, err := findPGTools(r.opt.Bin)
	if err != nil {
		return err
	}
	r.opt.Bin, r.major, r.res.Host.PGVersion = t.Bin, t.Major, t.Version
	_, err = os.Stat(filepath.Join(t.Bin, "..", "lib", "pg_stat_statements.so"))
	r.statements = err == nil
	if !r.statements {
		r.res.Notes = append(r.res.Notes, "pg_stat_statements is not installed next to "+t.Bin+": the budget reads the spills from the server log's temporary file lines alone")
	}
	return nil
}

// baseSettings are postgresql.conf's, the same in every run: PGTune's
// shared_buffers (RAM / 4), so that the runs differ only in private
// memory's settings, and the logging the budget reads spills from.
func (r *budgetRun) baseSettings() map[string]string {
	s := map[string]string{
		"shared_buffers":  fmt.Sprintf("%dMB", r.cfg.SharedBuffersBytes>>20),
		"max_connections": strconv.Itoa(r.cfg.MaxConnections),
		"huge_pages":      "off",
		"log_temp_files":  "-1", // the load's spills are not the workload's: 0 from the first run on
		"log_line_prefix": "%m [%p] %q%u@%d ",
	}
	if r.statements {
		s["shared_preload_libraries"] = "pg_stat_statements"
	}
	return s
}

// create makes the cgroup and the cluster, starts it inside the cgroup
// and loads the tables.
func (r *budgetRun) create(ctx context.Context) error {
	r.steps.begin("create the memory cgroup and the cluster", 0)
	if err := r.createCgroup(r.cfg.LimitBytes); err != nil {
		return err
	}
	r.res.Cgroup = r.g
	if err := r.createCluster(ctx, r.opt.Bin, r.opt.BaseDir, r.baseSettings()); err != nil {
		return err
	}
	if err := r.start(ctx); err != nil {
		return err
	}
	r.steps.begin(fmt.Sprintf("load the tables (pgbench scale %d, %d fact rows)", r.cfg.PgbenchScale, r.cfg.FactRows), 0)
	return r.load(ctx)
}

// experiment runs the three configurations: uniform-small (measuring
// dbmem's budget on the way), dbmem, pgtune.
func (r *budgetRun) experiment(ctx context.Context) error {
	small := r.smallConfig()
	if err := r.runConfig(ctx, small, true); err != nil {
		return fmt.Errorf("%s run: %w", small.Name, err)
	}
	if r.res.Budget == nil {
		return errors.New("dbmem's budget was not computed from the measuring run")
	}
	for _, c := range []*ConfigRun{r.dbmemConfig(), r.pgtuneConfig()} {
		if err := r.runConfig(ctx, c, false); err != nil {
			return fmt.Errorf("%s run: %w", c.Name, err)
		}
	}
	r.res.Checks = BudgetChecks(r.res)
	return nil
}

// cleanup stops and removes the cluster and the cgroup and removes the
// journal.
func (r *budgetRun) cleanup() error { return r.restore(nil) }
