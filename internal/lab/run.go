package lab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
)

// run is one lab run's state.
type run struct {
	core
	opt Options
	cfg Config
	res *Result
	// pages is the cluster's huge page need, pageSource where it came from.
	pages      int
	pageSource string
	grown      bool
}

// Run runs the experiment: a throwaway cluster, loaded once, measured with
// huge_pages=off and on, then pgbench runs alternating the two. Every
// change to the host is journaled before it is made and undone before Run
// returns, also when ctx is cancelled (SIGINT, SIGTERM) or on SIGHUP. The
// Result is returned with what was measured even when err is not nil.
func Run(ctx context.Context, o Options) (*Result, error) {
	r := newRun(o)
	err := r.runLocked(ctx, r)
	return r.res, err
}

func newRun(o Options) *run {
	if o.Quick && o.Settle.Max == 0 {
		o.Settle.Max = 6 * time.Second
	}
	res := &Result{Schema: Schema}
	k := newCore(&o.Common, fields{&res.StartedAt, &res.FinishedAt, &res.Elapsed, &res.Steps, &res.Restored, &res.Notes})
	return &run{core: k, opt: o, res: res}
}

// prepare reads the host, resolves the configuration, creates the cluster
// and checks that the experiment fits.
func (r *run) prepare(ctx context.Context) error {
	host, _, err := linux.ReadHost(r.fs)
	if err != nil {
		return err
	}
	m, err := memOf(host.Meminfo)
	if err != nil {
		return err
	}
	r.res.Host = HostInfo{Hostname: host.Hostname, KernelRelease: host.KernelRelease, CPUs: runtime.NumCPU(),
		MemTotalBytes: m.MemTotalBytes, MemAvailableBytes: m.MemAvailableBytes,
		PageSizeBytes: uint64(os.Getpagesize()), HugePageBytes: m.HugepagesizeBytes, THP: host.THP.Enabled}
	if r.cfg, err = Resolve(r.opt, m); err != nil {
		return err
	}
	r.res.Config = r.cfg
	if err := r.checkTools(); err != nil {
		return err
	}
	if err := checkDisk(r.opt.BaseDir, r.cfg); err != nil {
		return err
	}
	if err := checkFits(r.cfg, r.cfg.SharedBuffersBytes+r.cfg.SharedBuffersBytes/16, m); err != nil {
		return err
	}
	if err := r.create(ctx); err != nil {
		return err
	}
	return checkFits(r.cfg, uint64(r.pages)*m.HugepagesizeBytes, m)
}

// checkTools finds the PostgreSQL binaries and checks what the modes need.
func (r *run) checkTools() error {
	t, err := findPGTools(r.opt.Bin)
	if err != nil {
		return err
	}
	bin, major := t.Bin, t.Major
	r.opt.Bin, r.res.Host.PGVersion = bin, t.Version
	if r.cfg.Has(ModeOn) && major < 15 {
		return fmt.Errorf("PostgreSQL %d in %s: sizing the huge page pool needs `postgres -C shared_memory_size_in_huge_pages` (15+); use --pg-bin or --modes off", major, bin)
	}
	if r.cfg.Has(ModeOn) && os.Geteuid() != 0 {
		return fmt.Errorf("huge_pages=on needs root to grow vm.nr_hugepages: run as root, or --modes off")
	}
	return nil
}

// fullVersion is "15.20 (Debian 15.20-0+deb12u1)" from postgres --version,
// or the major version.
func fullVersion(bin string, major int) string {
	if pgcluster.CheckBin(bin, "postgres") != nil {
		return fmt.Sprint(major)
	}
	cmd := exec.Command(bin+"/postgres", "--version")
	cmd.Env = pgcluster.Env()
	out, err := cmd.Output()
	if _, v, ok := strings.Cut(strings.TrimSpace(string(out)), "(PostgreSQL) "); err == nil && ok {
		return v
	}
	return fmt.Sprint(major)
}

// create makes the cluster, journals it and asks it for its huge pages.
func (r *run) create(ctx context.Context) error {
	r.steps.begin("create cluster (initdb)", 0)
	if err := r.createCluster(ctx, r.opt.Bin, r.opt.BaseDir, r.settings()); err != nil {
		return err
	}
	var err error
	if r.pages, r.pageSource, err = r.hugePagesNeeded(ctx); err != nil {
		return err
	}
	r.steps.end()
	return nil
}

// experiment loads the data, runs each mode and the pgbench runs.
func (r *run) experiment(ctx context.Context) error {
	if err := r.load(ctx); err != nil {
		return err
	}
	for _, m := range r.cfg.Modes {
		mr, err := r.runMode(ctx, m)
		if mr != nil {
			r.res.Modes = append(r.res.Modes, mr)
		}
		if err != nil {
			return fmt.Errorf("huge_pages=%s: %w", m, err)
		}
	}
	if r.cfg.BenchRuns > 0 {
		return r.bench(ctx)
	}
	return nil
}
