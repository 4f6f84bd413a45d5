package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postmortem"
	"github.com/dbmem/dbmem/internal/safeexec"
	"github.com/dbmem/dbmem/internal/throwaway"
)

// oomRun is one `lab oom` run's state.
type oomRun struct {
	core
	opt  OOMOptions
	cfg  OOMConfig
	res  *OOMResult
	cred *syscall.Credential
	zone string
	boot time.Time
	base baseline
	// strict is the real strict overcommit guard (StrictOvercommit only).
	strict *strictGuard
}

// baseline is what the cluster commits under load and what a new backend
// maps, measured during the unprotected run.
type baseline struct {
	clusterCommit, backendVmSize uint64
	ok                           bool
}

// LockWaitStep names the time spent waiting for the machine-wide lock.
const LockWaitStep = "wait for the machine-wide lock"

// RunOOM runs the OOM experiment: a throwaway cluster in a memory cgroup
// under pgbench load, the field report's runaway sort without protection
// (the OOM killer ends it and the server restarts) and with it (the query
// fails with "out of memory"), and dbmem's post-mortem of each. Every
// change to the host is journaled before it is made and undone before
// RunOOM returns, also when ctx is cancelled or on SIGHUP; a run killed
// outright is undone by the next `dbmem lab` or `dbmem lab --restore`.
func RunOOM(ctx context.Context, o OOMOptions) (*OOMResult, error) {
	r := newOOMRun(o)
	err := r.runLocked(ctx, r)
	return r.res, err
}

func newOOMRun(o OOMOptions) *oomRun {
	res := &OOMResult{Schema: OOMSchema}
	k := newCore(&o.Common, fields{&res.StartedAt, &res.FinishedAt, &res.Elapsed, &res.Steps, &res.Restored, &res.Notes})
	return &oomRun{core: k, opt: o, res: res}
}

// prepare checks what the experiment needs before it changes anything.
func (r *oomRun) prepare(ctx context.Context) error {
	if os.Geteuid() != 0 {
		return errors.New("dbmem lab oom needs root: it creates a memory cgroup, moves its cluster into it and reads the kernel log")
	}
	h, m, err := labHost(r.fs)
	if err != nil {
		return err
	}
	r.res.Host = h
	if r.cfg, err = ResolveOOM(r.opt); err != nil {
		return err
	}
	r.res.Config = r.cfg
	if err := r.checkTools(); err != nil {
		return err
	}
	if err := cgroupFits(m, r.cfg.LimitBytes); err != nil {
		return err
	}
	if r.cfg.StrictOvercommit {
		if err := r.precheckStrict(); err != nil {
			return err
		}
	}
	r.zone = zoneName(r.fs)
	r.boot, _ = linux.BootTime(r.fs)
	return r.create(ctx)
}

func zoneName(fs linux.FS) string {
	_, z := postmortem.HostZone(fs)
	return z
}

// checkTools finds PostgreSQL, pgbench and dmesg, and the OS user.
func (r *oomRun) checkTools() error {
	t, err := findPGTools(r.opt.Bin)
	if err != nil {
		return err
	}
	r.opt.Bin, r.res.Host.PGVersion = t.Bin, t.Version
	if _, err := safeexec.LookPath("dmesg"); err != nil {
		return errors.New("dmesg not found: the post-mortem reads the kernel log with it (Debian: util-linux)")
	}
	r.cred, err = throwaway.Credential("postgres")
	return err
}

// create makes the cgroup and the cluster, starts it inside the cgroup
// and loads pgbench's tables.
func (r *oomRun) create(ctx context.Context) error {
	r.steps.begin("create the memory cgroup and the cluster", 0)
	if err := r.createCgroup(r.cfg.LimitBytes); err != nil {
		return err
	}
	r.res.Cgroup = r.g
	if err := r.createCluster(ctx, r.opt.Bin, r.opt.BaseDir, r.oomSettings()); err != nil {
		return err
	}
	if err := r.start(ctx, 0); err != nil {
		return err
	}
	r.steps.begin(fmt.Sprintf("load pgbench's tables (scale %d)", r.cfg.Scale), 0)
	if err := r.load(ctx); err != nil {
		return err
	}
	r.steps.end()
	return nil
}

// experiment runs the query unprotected, then protected.
func (r *oomRun) experiment(ctx context.Context) error {
	run, err := r.scenario(ctx, "unprotected")
	r.res.Unprotected = run
	if err != nil {
		return fmt.Errorf("unprotected run: %w", err)
	}
	if err := r.protect(ctx); err != nil {
		return err
	}
	run, err = r.scenario(ctx, "protected")
	r.res.Protected = run
	if err != nil {
		return fmt.Errorf("protected run: %w", err)
	}
	return nil
}

// protect restarts the cluster protected: with the address-space limit
// the formula gives, or for real with strict overcommit (set just before
// the query by the scenario).
func (r *oomRun) protect(ctx context.Context) error {
	r.steps.begin("restart the cluster, protected", 0)
	defer r.steps.end()
	if !r.base.ok {
		return errors.New("the cluster's commit and a new backend's size were not measured: no basis for the protection")
	}
	p, err := planEmulation(r.cfg.LimitBytes, r.base.clusterCommit, r.base.backendVmSize)
	if err != nil {
		return err
	}
	r.res.Protection = p
	if err := r.c.Stop(ctx); err != nil {
		return err
	}
	if r.cfg.StrictOvercommit {
		return r.prepareStrict(ctx, p)
	}
	return r.start(ctx, p.AddressSpaceLimitBytes)
}

// cleanup puts strict overcommit back if it is still set, stops and
// removes the cluster and the cgroup, restores the kernel settings and
// removes the journal.
func (r *oomRun) cleanup() error { return r.restore(r.strict.disarm) }

// sleep waits d unless ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
