package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/units"
)

// budgetRun is one `lab budget` run's state.
type budgetRun struct {
	sandbox
	opt   BudgetOptions
	cfg   BudgetConfig
	res   *BudgetResult
	prog  Progress
	steps stepper
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
func RunBudget(ctx context.Context, o BudgetOptions) (res *BudgetResult, err error) {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP)
	defer stop()
	r := newBudgetRun(o)
	l, jr, notes, err := takeHost(ctx, r.fs, o.LockPath, r.opt.JournalPath, r.prog, func() { r.steps.begin(LockWaitStep, 0) })
	r.steps.end()
	r.res.Notes, r.jr = append(r.res.Notes, notes...), jr
	if err != nil {
		return r.res, err
	}
	defer l.Release()
	defer func() { err = errors.Join(err, r.cleanup()) }()
	if err := r.prepare(ctx); err != nil {
		return r.res, err
	}
	if err := r.experiment(ctx); err != nil {
		return r.res, err
	}
	r.res.Checks = BudgetChecks(r.res)
	return r.res, nil
}

func newBudgetRun(o BudgetOptions) *budgetRun {
	if o.FS.Proc == "" {
		o.FS = linux.DefaultFS()
	}
	if o.JournalPath == "" {
		o.JournalPath = DefaultJournalPath
	}
	r := &budgetRun{opt: o, prog: o.Progress}
	r.fs = o.FS
	if r.prog == nil {
		r.prog = nopProgress{}
	}
	r.res = &BudgetResult{Schema: BudgetSchema, StartedAt: time.Now().UTC(), Configs: []*ConfigRun{}, Checks: []Check{}}
	r.steps = stepper{prog: r.prog, out: &r.res.Steps}
	return r
}

// prepare checks what the experiment needs, then makes the cgroup and the
// cluster and loads the data.
func (r *budgetRun) prepare(ctx context.Context) error {
	if os.Geteuid() != 0 {
		return errors.New("dbmem lab budget needs root: it creates a memory cgroup and moves its cluster into it")
	}
	m, err := meminfo(r.fs, "MemTotal", "MemAvailable", "Hugepagesize")
	if err != nil {
		return err
	}
	r.res.Host = HostInfo{CPUs: runtime.NumCPU(), MemTotalBytes: m["MemTotal"], MemAvailableBytes: m["MemAvailable"],
		PageSizeBytes: uint64(os.Getpagesize()), HugePageBytes: m["Hugepagesize"]}
	r.res.Host.Hostname, _ = linux.ReadSysctl(r.fs, "kernel.hostname")
	r.res.Host.KernelRelease, _ = linux.ReadSysctl(r.fs, "kernel.osrelease")
	if r.cfg, err = ResolveBudget(r.opt); err != nil {
		return err
	}
	r.res.Config = r.cfg
	if err := r.checkTools(); err != nil {
		return err
	}
	margin := max(units.GiB, m["MemTotal"]/10)
	if need := r.cfg.LimitBytes + margin; m["MemAvailable"] < need {
		return fmt.Errorf("MemAvailable is %s: the experiment's memory cgroup of %s plus a margin of %s for the host does not fit; lower --limit",
			units.Bytes(m["MemAvailable"]), units.Bytes(r.cfg.LimitBytes), units.Bytes(margin))
	}
	return r.create(ctx)
}

// checkTools finds PostgreSQL and pgbench.
func (r *budgetRun) checkTools() error {
	bin, err := pgcluster.FindBin(r.opt.Bin)
	if err != nil {
		return err
	}
	r.opt.Bin = bin
	if err := pgcluster.CheckBin(bin, "pgbench"); err != nil {
		return fmt.Errorf("pgbench not found in %s: install it (Debian: postgresql-contrib or postgresql-client) or point --pg-bin at a directory that has it: %w", bin, err)
	}
	if r.major, err = pgcluster.MajorVersion(bin); err != nil {
		return err
	}
	r.res.Host.PGVersion = fullVersion(bin, r.major)
	_, err = os.Stat(filepath.Join(bin, "..", "lib", "pg_stat_statements.so"))
	r.statements = err == nil
	if !r.statements {
		r.res.Notes = append(r.res.Notes, "pg_stat_statements is not installed next to "+bin+": the budget reads the spills from the server log's temporary file lines alone")
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
	return nil
}

// cleanup stops and removes the cluster and the cgroup and removes the
// journal, with a fresh context.
func (r *budgetRun) cleanup() error {
	r.steps.end()
	r.prog.Begin("restore the host", 0)
	defer r.prog.End()
	undone, errs := r.teardown()
	r.res.Restored = append(r.res.Restored, undone...)
	if err := errors.Join(errs...); err == nil && r.jr != nil {
		errs = append(errs, r.jr.Remove())
	}
	r.res.FinishedAt = time.Now().UTC()
	r.res.Elapsed = r.res.FinishedAt.Sub(r.res.StartedAt)
	return errors.Join(errs...)
}
