package lab

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/units"
)

// The lab is a small framework and its experiments (`dbmem lab`, `lab
// oom`, `lab budget`). Each experiment supplies its options, its steps and
// its result; the framework gives them one run (core: its options'
// defaults, runLocked's signals, the machine-wide lock, the journal of a
// killed run undone, restore on every exit), one step timer (stepper), one
// check of the tools (findPGTools), one reading of the host (labHost) and
// one throwaway cluster in a memory cgroup (sandbox), each journaled
// before it is made.

// core is the part of every experiment's run that the framework drives:
// the host it changes (its sandbox, with the journal), where the lock and
// the journal live, its progress and step timer, and the fields every
// result has.
type core struct {
	sandbox
	lockPath, journalPath string
	prog                  Progress
	steps                 stepper
	rec                   fields
}

// fields points at the fields every experiment's result has.
type fields struct {
	started, finished *time.Time
	elapsed           *time.Duration
	steps             *[]StepTime
	restored          *[]HostChange
	notes             *[]string
}

// experiment is what runLocked runs: prepare reads the host, checks and
// creates; experiment measures; cleanup undoes (core.restore).
type experiment interface {
	prepare(context.Context) error
	experiment(context.Context) error
	cleanup() error
}

// newCore fills o's defaults (the live host, the default journal) and
// starts rec's clock.
func newCore(o *Common, rec fields) core {
	o.FS = o.FS.OrDefault()
	o.JournalPath = cmp.Or(o.JournalPath, DefaultJournalPath)
	prog := o.Progress
	if prog == nil {
		prog = nopProgress{}
	}
	*rec.started = time.Now().UTC()
	return core{sandbox: sandbox{fs: o.FS}, lockPath: o.LockPath, journalPath: o.JournalPath, prog: prog,
		steps: stepper{prog: prog, out: rec.steps}, rec: rec}
}

// runLocked is every experiment's skeleton: SIGHUP cancels ctx as SIGINT
// and SIGTERM do (cmd/dbmem); the machine-wide lock is taken (the wait is
// a timed step when another process holds it); what a killed run left in
// the journal is undone; this run's journal starts; x prepares and runs;
// x's cleanup runs on every exit once the lock is held, its error joined;
// the lock is released last.
func (k *core) runLocked(ctx context.Context, x experiment) (err error) {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP)
	defer stop()
	l, jr, notes, err := takeHost(ctx, k.fs, k.lockPath, k.journalPath, k.prog, func() { k.steps.begin(LockWaitStep, 0) })
	k.steps.end()
	*k.rec.notes = append(*k.rec.notes, notes...)
	k.jr = jr
	if err != nil {
		return err
	}
	defer l.Release()
	defer func() { err = errors.Join(err, x.cleanup()) }()
	if err := x.prepare(ctx); err != nil {
		return err
	}
	return x.experiment(ctx)
}

// restore is every experiment's cleanup, with a fresh context (the run's
// may be cancelled): the last step ends; as the step "restore the host",
// first runs (nil: nothing), the cluster and the cgroup are removed and
// the journal's kernel settings put back, newest first; the journal is
// removed when all was undone; the result's end is stamped.
func (k *core) restore(first func() error) error {
	k.steps.end()
	k.prog.Begin("restore the host", 0)
	defer k.prog.End()
	var errs []error
	if first != nil {
		errs = append(errs, first())
	}
	undone, terrs := k.teardown()
	errs = append(errs, terrs...)
	if k.jr != nil {
		kernel, kerrs := undoKernel(k.fs, k.jr)
		undone, errs = append(undone, kernel...), append(errs, kerrs...)
	}
	*k.rec.restored = append(*k.rec.restored, undone...)
	if err := errors.Join(errs...); err == nil && k.jr != nil {
		errs = append(errs, k.jr.Remove())
	}
	*k.rec.finished = time.Now().UTC()
	*k.rec.elapsed = k.rec.finished.Sub(*k.rec.started)
	return errors.Join(errs...)
}

// pgTools are the PostgreSQL binaries an experiment runs.
type pgTools struct {
	Bin   string
	Major int
	// Version is "15.20 (Debian 15.20-0+deb12u1)", or the major version.
	Version string
}

// findPGTools finds PostgreSQL's binaries (bin, else FindBin's choice)
// and pgbench beside them.
func findPGTools(bin string) (pgTools, error) {
	bin, err := pgcluster.FindBin(bin)
	if err != nil {
		return pgTools{}, err
	}
	if _, err := os.Stat(bin + "/pgbench"); err != nil {
		return pgTools{}, fmt.Errorf("pgbench not found in %s: install it (Debian: postgresql-contrib or postgresql-client) or point --pg-bin at a directory that has it", bin)
	}
	major, err := pgcluster.MajorVersion(bin)
	if err != nil {
		return pgTools{}, err
	}
	return pgTools{Bin: bin, Major: major, Version: fullVersion(bin, major)}, nil
}

// labHost reads the host's facts and /proc/meminfo's MemTotal,
// MemAvailable and Hugepagesize.
func labHost(fs linux.FS) (HostInfo, map[string]uint64, error) {
	m, err := meminfo(fs, "MemTotal", "MemAvailable", "Hugepagesize")
	if err != nil {
		return HostInfo{}, nil, err
	}
	h := HostInfo{CPUs: runtime.NumCPU(), MemTotalBytes: m["MemTotal"], MemAvailableBytes: m["MemAvailable"],
		PageSizeBytes: uint64(os.Getpagesize()), HugePageBytes: m["Hugepagesize"]}
	h.Hostname, _ = linux.ReadSysctl(fs, "kernel.hostname")
	h.KernelRelease, _ = linux.ReadSysctl(fs, "kernel.osrelease")
	return h, m, nil
}

// cgroupFits says whether the experiment's memory cgroup of limit bytes
// fits in MemAvailable beside a margin for the host (the larger of 1 GiB
// and a tenth of RAM); m is labHost's meminfo.
func cgroupFits(m map[string]uint64, limit uint64) error {
	margin := max(units.GiB, m["MemTotal"]/10)
	if need := limit + margin; m["MemAvailable"] < need {
		return fmt.Errorf("MemAvailable is %s: the experiment's memory cgroup of %s plus a margin of %s for the host does not fit; lower --limit",
			units.Bytes(m["MemAvailable"]), units.Bytes(limit), units.Bytes(margin))
	}
	return nil
}
