package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/memcg"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/postmortem"
	"github.com/dbmem/dbmem/internal/safeexec"
	"github.com/dbmem/dbmem/internal/throwaway"
	"github.com/dbmem/dbmem/internal/units"
)

// oomRun is one `lab oom` run's state.
type oomRun struct {
	opt   OOMOptions
	fs    linux.FS
	cfg   OOMConfig
	res   *OOMResult
	prog  Progress
	steps stepper
	c     *pgcluster.Cluster
	g     *memcg.Group
	jr    *hostchange.Journal
	cred  *syscall.Credential
	zone  string
	boot  time.Time
	base  baseline
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
func RunOOM(ctx context.Context, o OOMOptions) (res *OOMResult, err error) {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP)
	defer stop()
	r := newOOMRun(o)
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
	return r.res, r.experiment(ctx)
}

func newOOMRun(o OOMOptions) *oomRun {
	if o.FS.Proc == "" {
		o.FS = linux.DefaultFS()
	}
	if o.JournalPath == "" {
		o.JournalPath = DefaultJournalPath
	}
	r := &oomRun{opt: o, fs: o.FS, prog: o.Progress}
	if r.prog == nil {
		r.prog = nopProgress{}
	}
	r.res = &OOMResult{Schema: OOMSchema, StartedAt: time.Now().UTC()}
	r.steps = stepper{prog: r.prog, out: &r.res.Steps}
	return r
}

// prepare checks what the experiment needs before it changes anything.
func (r *oomRun) prepare(ctx context.Context) error {
	if os.Geteuid() != 0 {
		return errors.New("dbmem lab oom needs root: it creates a memory cgroup, moves its cluster into it and reads the kernel log")
	}
	m, err := meminfo(r.fs, "MemTotal", "MemAvailable", "Hugepagesize")
	if err != nil {
		return err
	}
	r.res.Host = r.hostInfo(m)
	if r.cfg, err = ResolveOOM(r.opt); err != nil {
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
	if r.cfg.StrictOvercommit {
		if err := r.precheckStrict(); err != nil {
			return err
		}
	}
	r.zone = zoneName(r.fs)
	r.boot, _ = postmortem.BootTime(r.fs)
	return r.create(ctx)
}

func (r *oomRun) hostInfo(m map[string]uint64) HostInfo {
	h := HostInfo{CPUs: runtime.NumCPU(), MemTotalBytes: m["MemTotal"], MemAvailableBytes: m["MemAvailable"],
		PageSizeBytes: uint64(os.Getpagesize()), HugePageBytes: m["Hugepagesize"]}
	h.Hostname, _ = linux.ReadSysctl(r.fs, "kernel.hostname")
	h.KernelRelease, _ = linux.ReadSysctl(r.fs, "kernel.osrelease")
	return h
}

func zoneName(fs linux.FS) string {
	_, z := postmortem.HostZone(fs)
	return z
}

// checkTools finds PostgreSQL, pgbench and dmesg, and the OS user.
func (r *oomRun) checkTools() error {
	bin, err := pgcluster.FindBin(r.opt.Bin)
	if err != nil {
		return err
	}
	r.opt.Bin = bin
	if _, err := os.Stat(bin + "/pgbench"); err != nil {
		return fmt.Errorf("pgbench not found in %s: install it (Debian: postgresql-contrib or postgresql-client) or point --pg-bin at a directory that has it", bin)
	}
	if _, err := safeexec.LookPath("dmesg"); err != nil {
		return errors.New("dmesg not found: the post-mortem reads the kernel log with it (Debian: util-linux)")
	}
	major, err := pgcluster.MajorVersion(bin)
	if err != nil {
		return err
	}
	r.res.Host.PGVersion = fullVersion(bin, major)
	r.cred, err = throwaway.Credential("postgres")
	return err
}

// create makes the cgroup and the cluster, starts it inside the cgroup
// and loads pgbench's tables.
func (r *oomRun) create(ctx context.Context) error {
	r.steps.begin("create the memory cgroup and the cluster", 0)
	if err := r.createCgroup(); err != nil {
		return err
	}
	if err := r.createCluster(ctx); err != nil {
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

// cleanup stops and removes the cluster and the cgroup, restores the
// kernel settings and removes the journal, with a fresh context.
func (r *oomRun) cleanup() error {
	r.steps.end()
	r.prog.Begin("restore the host", 0)
	defer r.prog.End()
	var errs []error
	if r.strict != nil {
		errs = append(errs, r.strict.disarm())
	}
	if r.c != nil {
		errs = append(errs, r.removeCluster())
	}
	if r.g != nil {
		x := HostChange{What: "memory cgroup " + r.g.Dir, Before: "absent", Set: "created", After: "absent", OK: true}
		if err := r.g.Remove(15 * time.Second); err != nil {
			x.OK, x.After, x.Error = false, "present", err.Error()
			errs = append(errs, err)
		}
		r.res.Restored = append(r.res.Restored, x)
	}
	errs = append(errs, r.undoChanges()...)
	if err := errors.Join(errs...); err == nil && r.jr != nil {
		errs = append(errs, r.jr.Remove())
	}
	r.res.FinishedAt = time.Now().UTC()
	r.res.Elapsed = r.res.FinishedAt.Sub(r.res.StartedAt)
	return errors.Join(errs...)
}

func (r *oomRun) removeCluster() error {
	x := HostChange{What: "cluster " + r.c.Dir, Before: "absent", Set: "created", After: "absent", OK: true}
	err := r.c.Remove()
	if err != nil {
		x.OK, x.After, x.Error = false, "present", err.Error()
		err = fmt.Errorf("remove cluster %s: %w", r.c.Dir, err)
	}
	r.res.Restored = append(r.res.Restored, x)
	return err
}

// undoChanges restores the kernel settings the run changed, newest first.
func (r *oomRun) undoChanges() []error {
	if r.jr == nil {
		return nil
	}
	undone, errs := undoKernel(r.fs, r.jr)
	r.res.Restored = append(r.res.Restored, undone...)
	return errs
}

// sleep waits d unless ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
