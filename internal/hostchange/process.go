package hostchange

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dbmem/dbmem/internal/linux"
)

// Process identifies a process across pid reuse by what the kernel says
// of it: its pid, its start time (clock ticks after boot) and its
// executable.
type Process struct {
	PID        int    `json:"pid"`
	StartTicks uint64 `json:"start_ticks"`
	Exe        string `json:"exe,omitempty"`
}

// ProcessOf reads pid's identity.
func ProcessOf(fs linux.FS, pid int) (Process, error) {
	st, err := linux.ReadStat(fs, pid)
	if err != nil {
		return Process{}, err
	}
	exe, err := os.Readlink(fs.ProcPath(strconv.Itoa(pid), "exe"))
	if err != nil {
		return Process{}, fmt.Errorf("read the executable of pid %d: %w", pid, err)
	}
	return Process{PID: pid, StartTicks: st.StartTicks, Exe: exe}, nil
}

// Self is the running process (read from the live /proc); its executable
// is left out (a test binary, a dbmem that was upgraded since).
func Self() (Process, error) {
	st, err := linux.ReadStat(linux.DefaultFS(), os.Getpid())
	if err != nil {
		return Process{}, err
	}
	return Process{PID: os.Getpid(), StartTicks: st.StartTicks}, nil
}

// Running reports whether p still runs: the pid's start time (and, when
// recorded, executable) are p's, and it is not a zombie.
func (p Process) Running(fs linux.FS) bool {
	if p.PID <= 0 {
		return false
	}
	st, err := linux.ReadStat(fs, p.PID)
	if err != nil || st.State == "Z" || st.StartTicks != p.StartTicks {
		return false
	}
	if p.Exe == "" {
		return true
	}
	exe, err := os.Readlink(fs.ProcPath(strconv.Itoa(p.PID), "exe"))
	return err == nil && exe == p.Exe
}

// Signal sends sig to p if it is still p: a pidfd is opened first and
// the identity checked after, so a pid reused meanwhile gets nothing.
func (p Process) Signal(fs linux.FS, sig syscall.Signal) error {
	fd, err := unix.PidfdOpen(p.PID, 0)
	if err != nil {
		return fmt.Errorf("pid %d: %w", p.PID, err)
	}
	defer unix.Close(fd)
	if !p.Running(fs) {
		return fmt.Errorf("pid %d is no longer the process the journal names", p.PID)
	}
	return unix.PidfdSendSignal(fd, sig, nil, 0)
}

// Stop sends SIGQUIT (a PostgreSQL server's immediate shutdown; another
// program's default is to end too), then SIGKILL if p still runs after
// grace, and waits up to 10 s more for it to end.
func (p Process) Stop(fs linux.FS, grace time.Duration) error {
	if err := p.Signal(fs, syscall.SIGQUIT); err != nil {
		return err
	}
	if p.wait(fs, grace) {
		return nil
	}
	if err := p.Signal(fs, syscall.SIGKILL); err != nil && p.Running(fs) {
		return err
	}
	if !p.wait(fs, 10*time.Second) {
		return errors.New("still running after SIGKILL")
	}
	return nil
}

// wait waits up to d for p to end: a zombie, or its pid gone or reused
// (its executable is not asked: an exiting process's link is gone before
// the process is).
func (p Process) wait(fs linux.FS, d time.Duration) bool {
	for end := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		st, err := linux.ReadStat(fs, p.PID)
		if err != nil || st.State == "Z" || st.StartTicks != p.StartTicks {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}
