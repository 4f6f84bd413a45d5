package oomguard

import (
	"context"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/safeexec"
	"github.com/dbmem/dbmem/internal/units"
)

// Value is a setting and where it came from ("systemctl show", a unit
// file or drop-in path, or "default" when nothing sets it).
type Value struct {
	Value string `json:"value"`
	From  string `json:"from"`
}

// Set reports whether the value was read (not a default).
func (v Value) Set() bool { return v.From != "" && v.From != FromDefault }

// FromDefault marks a value that nothing set: systemd's default.
const FromDefault = "default"

// Guard is what decides a database's fate when memory runs out.
type Guard struct {
	// SystemdPID1: systemd runs the host, so `systemctl show` was asked.
	SystemdPID1 bool        `json:"systemd_pid1"`
	Units       []UnitAudit `json:"units,omitempty"`
	Oomd        Oomd        `json:"systemd_oomd"`
	Earlyoom    Earlyoom    `json:"earlyoom"`
	// The kernel's settings; nil when not read.
	PanicOnOOM            *int `json:"panic_on_oom"`
	OOMKillAllocatingTask *int `json:"oom_kill_allocating_task"`
	IoUringDisabled       *int `json:"io_uring_disabled"`
	// MemlockUnlimited etc. are read per unit (LimitMEMLOCK).
	Gaps []linux.Gap `json:"gaps,omitempty"`
}

// Target is a database service to audit.
type Target struct {
	Subject string
	// Unit is the systemd unit that runs it (postgres.RunningUnit,
	// mysql.RunningUnit); "" when none does.
	Unit string
	// Comms are the database's process names, for earlyoom's lists.
	Comms []string
	// PID is a process of the service, for its RLIMIT_MEMLOCK.
	PID int
}

// Runner runs a program and returns its standard output.
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// Options say where to read.
type Options struct {
	FS      linux.FS
	Run     Runner
	Targets []Target
}

// Read audits the targets and the host's killers. Nothing it cannot read
// is an error: it becomes a gap.
func Read(ctx context.Context, o Options) *Guard {
	if o.Run == nil {
		o.Run = execRunner
	}
	g := &Guard{SystemdPID1: systemdPID1(o.FS)}
	procs := processes(o.FS)
	g.Oomd = readOomd(o.FS, procs)
	g.Earlyoom = readEarlyoom(o.FS, procs)
	g.PanicOnOOM = sysctlInt(o.FS, "vm.panic_on_oom", g)
	g.OOMKillAllocatingTask = sysctlInt(o.FS, "vm.oom_kill_allocating_task", g)
	g.IoUringDisabled = sysctlIntQuiet(o.FS, "kernel.io_uring_disabled")
	for _, t := range o.Targets {
		g.Units = append(g.Units, readUnit(ctx, o, g, t))
	}
	return g
}

// systemdPID1: /proc/1/comm is systemd and /run/systemd/system exists
// (sd_booted's test).
func systemdPID1(fs linux.FS) bool {
	comm, err := linux.ReadComm(fs, 1)
	return err == nil && comm == "systemd" && fs.IsLive() && fs.Exists("/run/systemd/system")
}

func sysctlInt(fs linux.FS, name string, g *Guard) *int {
	v, err := linux.ReadSysctl(fs, name)
	if err != nil {
		g.Gaps = append(g.Gaps, linux.Gap{What: name, Why: err.Error(), Kind: linux.KindOf(err)})
		return nil
	}
	return units.AtoiPtr(strings.TrimSpace(v))
}

// sysctlIntQuiet reads a sysctl kernels before 6.6 do not have.
func sysctlIntQuiet(fs linux.FS, name string) *int {
	v, err := linux.ReadSysctl(fs, name)
	if err != nil {
		return nil
	}
	return units.AtoiPtr(strings.TrimSpace(v))
}

// maxShow bounds what is kept of one `systemctl show` (a few KiB in
// practice); output over it is an error, not a partial unit.
const maxShow = 1 << 20

// execRunner runs systemctl through safeexec: from the system directories
// only, with a cleared environment, bounded in time and output.
func execRunner(ctx context.Context, name string, args ...string) ([]byte, error) {
	return safeexec.Output(ctx, safeexec.Command{Name: name, Args: args, MaxBytes: maxShow, Head: true,
		Timeout: 20 * time.Second, Env: []string{"SYSTEMD_PAGER=", "SYSTEMD_COLORS=0"}})
}
