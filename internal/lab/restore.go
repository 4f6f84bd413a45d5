package lab

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbmem/dbmem/internal/kernelset"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/memcg"
)

// Restore undoes what a killed lab run left, as recorded in the journal at
// journalPath: it stops and removes the run's cluster, then restores every
// kernel setting the run changed, newest first, and removes the journal. It
// takes the machine-wide lock at lockPath ("" when the caller holds it).
// With no journal it returns no entries and no error.
func Restore(ctx context.Context, fs linux.FS, journalPath, lockPath string) ([]HostChange, error) {
	l, err := lockHost(ctx, lockPath, nil)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	return replay(fs, journalPath)
}

// replay restores from the journal; the caller holds the lock.
func replay(fs linux.FS, path string) ([]HostChange, error) {
	j, ok, err := readJournal(path)
	if err != nil || !ok {
		return nil, err
	}
	if runs(fs, j.PID, j.StartTicks) {
		return nil, fmt.Errorf("lab run PID %d (journal %s) is still running: it restores on exit; stop it with Ctrl-C or kill -TERM %d", j.PID, path, j.PID)
	}
	var out []HostChange
	if j.ClusterDir != "" {
		out = append(out, removeLeftover(fs, j.ClusterDir))
	}
	if j.Cgroup != "" {
		out = append(out, removeCgroup(j.Cgroup, j.CgroupParent))
	}
	for i := len(j.Changes) - 1; i >= 0; i-- {
		out = append(out, undo(j.Changes[i]))
	}
	for _, r := range out {
		if !r.OK {
			return out, fmt.Errorf("could not restore %s: %s; journal kept at %s", r.What, r.Error, path)
		}
	}
	return out, removeJournal(path)
}

// removeCgroup removes the memory cgroup of a killed `lab oom` run, after
// its cluster was stopped.
func removeCgroup(dir, parent string) HostChange {
	r := HostChange{What: "memory cgroup " + dir, Before: "absent", Set: "created"}
	if !safeCgroup(dir, parent) {
		r.Error = "not a memory cgroup the lab creates (" + CgroupPrefix + "*): not touched"
		return r
	}
	if err := memcg.RemoveDir(dir, parent, 15*time.Second); err != nil {
		r.Error = err.Error()
		return r
	}
	r.After, r.OK = "absent", true
	return r
}

// runs reports whether pid is still the process that wrote the journal.
func runs(fs linux.FS, pid int, ticks uint64) bool {
	if pid == os.Getpid() {
		return false
	}
	st, err := linux.ReadStat(fs, pid)
	return err == nil && st.StartTicks == ticks && st.State != "Z"
}

// undo restores one kernel setting, but only while it still holds what the
// lab set: a value changed by someone else since is theirs.
func undo(c change) HostChange {
	r := HostChange{What: settingName(c.Path), Before: c.Before, Set: c.Set}
	cur, err := kernelset.Read(c.Path)
	switch {
	case err != nil:
		r.Error = err.Error()
		return r
	case cur == c.Before:
		r.After, r.OK = cur, true
		return r
	case cur != c.Set:
		r.After = cur
		r.Error = fmt.Sprintf("it holds %s, not the %s the lab set (it was %s before): changed by someone else since, so the lab leaves it; "+
			"check it and set it yourself", cur, c.Set, c.Before)
		return r
	}
	r.After, err = kernelset.Write(c.Path, c.Before)
	if err != nil {
		r.Error = err.Error()
	} else if r.After != c.Before {
		r.Error = fmt.Sprintf("wrote %s, the kernel reads back %s", c.Before, r.After)
	}
	r.OK = r.Error == ""
	return r
}

// settingName turns /proc/sys/vm/nr_hugepages into vm.nr_hugepages.
func settingName(path string) string {
	if i := strings.Index(path, "/sys/"); i >= 0 && strings.Contains(path, "/proc/sys/") {
		return strings.ReplaceAll(strings.TrimPrefix(path[i:], "/sys/"), "/", ".")
	}
	return path
}

// removeLeftover stops the postmaster of a cluster a killed run left (only
// if its command line names that data directory) and removes the directory.
func removeLeftover(fs linux.FS, dir string) HostChange {
	r := HostChange{What: "cluster " + dir, Before: "absent", Set: "created"}
	if !safeClusterDir(dir) {
		r.Error = "not a directory the lab creates (dbmem-pg-*): not touched"
		return r
	}
	data := filepath.Join(dir, "data")
	waitStarters(fs, data, 60*time.Second)
	if pid := postmasterOf(fs, data); pid > 0 {
		syscall.Kill(pid, syscall.SIGQUIT) // immediate shutdown of our own server
		if !waitExit(fs, pid, 30*time.Second) {
			syscall.Kill(pid, syscall.SIGKILL)
			waitExit(fs, pid, 10*time.Second)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		r.Error = err.Error()
		return r
	}
	r.After, r.OK = "absent", true
	return r
}

// waitStarters waits for a pg_ctl of this data directory (a killed run may
// have left one starting the server) to finish, so that the postmaster it
// starts is found and stopped; after d it is terminated.
func waitStarters(fs linux.FS, data string, d time.Duration) {
	for end := time.Now().Add(d); ; time.Sleep(100 * time.Millisecond) {
		pids := processesOf(fs, data, "pg_ctl")
		if len(pids) == 0 {
			return
		}
		if time.Now().After(end) {
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGTERM)
			}
			return
		}
	}
}

// processesOf lists the processes named comm whose command line holds arg.
func processesOf(fs linux.FS, arg, comm string) []int {
	pids, _ := linux.ListPIDs(fs)
	var out []int
	for _, pid := range pids {
		st, err := linux.ReadStat(fs, pid)
		if err != nil || st.Comm != comm || st.State == "Z" {
			continue
		}
		if args, err := linux.ReadCmdline(fs, pid); err == nil && strings.Contains(strings.Join(args, " "), arg) {
			out = append(out, pid)
		}
	}
	return out
}

// postmasterOf returns the running postmaster of data, 0 if none.
func postmasterOf(fs linux.FS, data string) int {
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0
	}
	cmd, err := fs.ReadFile(fs.ProcPath(strconv.Itoa(pid), "cmdline"))
	if err != nil || !bytes.Contains(cmd, []byte(data)) {
		return 0
	}
	return pid
}

func waitExit(fs linux.FS, pid int, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		st, err := linux.ReadStat(fs, pid)
		if err != nil || st.State == "Z" {
			return true
		}
	}
	return false
}
