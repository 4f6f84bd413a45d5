package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/units"
)

// The lab is a small framework and its experiments (`dbmem lab`, `lab
// oom`, `lab budget`). Each experiment supplies its options, its steps and
// its result; the framework gives them one skeleton (runLocked: signals,
// the machine-wide lock, the journal of a killed run undone, cleanup on
// every exit), one step timer (stepper), one check of the tools
// (findPGTools), one reading of the host (labHost) and one throwaway
// cluster in a memory cgroup (sandbox), each journaled before it is made.

// lockedRun is what runLocked needs of an experiment.
type lockedRun struct {
	fs                    linux.FS
	lockPath, journalPath string
	prog                  Progress
	steps                 *stepper
	// notes receives a note per change of a killed run undone.
	notes *[]string
	// journal receives this run's journal (nil when the lock or the replay
	// failed).
	journal func(*hostchange.Journal)
}

// runLocked is every experiment's skeleton: SIGHUP cancels ctx as SIGINT
// and SIGTERM do (cmd/dbmem); the machine-wide lock is taken (the wait is
// a timed step when another process holds it); what a killed run left in
// the journal is undone; this run's journal starts; body runs; cleanup
// runs on every exit once the lock is held, its error joined; the lock is
// released last.
func runLocked(ctx context.Context, x lockedRun, body func(context.Context) error, cleanup func() error) (err error) {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP)
	defer stop()
	l, jr, notes, err := takeHost(ctx, x.fs, x.lockPath, x.journalPath, x.prog, func() { x.steps.begin(LockWaitStep, 0) })
	x.steps.end()
	*x.notes = append(*x.notes, notes...)
	x.journal(jr)
	if err != nil {
		return err
	}
	defer l.Release()
	defer func() { err = errors.Join(err, cleanup()) }()
	return body(ctx)
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
