package sampler

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/redact"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// procReader reads every user-space process as cheaply as the view
// allows: status and oom_score/oom_score_adj for all (each constant time in
// the kernel); for PostgreSQL processes also stat (start time, to tell
// PID reuse apart) and, once per process, its title from cmdline. Kernel
// threads cost one status read.
type procReader struct {
	titles map[ProcKey]string // titles read in the previous pass
}

// read lists the processes. Processes that exit meanwhile are left out;
// unreadable ones are counted in one gap. It stops, with ctx's error, at
// the first process after ctx ended.
func (r *procReader) read(ctx context.Context, fs linux.FS) ([]linux.Process, []linux.Gap, error) {
	pids, err := linux.ListPIDs(fs)
	if err != nil {
		return nil, nil, err
	}
	next := map[ProcKey]string{}
	var out []linux.Process
	var failed int
	var lastErr error
	for _, pid := range pids {
		if err := abandoned(ctx); err != nil {
			return nil, nil, err
		}
		p, ok, err := r.one(fs, pid, next)
		switch {
		case linux.IsGone(err):
		case err != nil:
			failed, lastErr = failed+1, err
		case ok:
			out = append(out, p)
		}
	}
	r.titles = next
	var gaps []linux.Gap
	if failed > 0 {
		gaps = append(gaps, linux.Gap{What: fmt.Sprintf("%d processes", failed), Why: lastErr.Error(), Kind: linux.KindOf(lastErr)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out, gaps, nil
}

// one reads a process; ok is false for a kernel thread.
func (r *procReader) one(fs linux.FS, pid int, titles map[ProcKey]string) (linux.Process, bool, error) {
	st, err := linux.ReadStatus(fs, pid)
	if err != nil || !st.HasMM {
		return linux.Process{}, false, err
	}
	p := linux.Process{PID: pid, PPid: st.PPid, Comm: st.Name, Status: st}
	if p.OOMScore, p.OOMScoreAdj, err = linux.ReadOOM(fs, pid); err != nil {
		return p, false, err
	}
	if !postgres.IsServerComm(st.Name) && !mysql.IsServerComm(st.Name) {
		return p, true, nil
	}
	stat, err := linux.ReadStat(fs, pid)
	if err != nil {
		return p, false, err
	}
	p.Comm, p.StartTicks, p.MinFlt, p.MajFlt = stat.Comm, stat.StartTicks, stat.MinFlt, stat.MajFlt
	if !postgres.IsServerComm(p.Comm) {
		return p, true, nil
	}
	title, seen := r.titles[keyOf(p)]
	if !seen {
		args, err := linux.ReadCmdline(fs, pid)
		if err != nil {
			return p, false, err
		}
		title = redact.Title(args)
	}
	p.Title, titles[keyOf(p)] = title, title
	return p, true, nil
}

// ProcKey identifies a process across PID reuse: its PID and start time.
type ProcKey struct {
	PID   int
	Start uint64
}

func keyOf(p linux.Process) ProcKey { return ProcKey{p.PID, p.StartTicks} }

// postmasters returns the PostgreSQL processes whose parent is not one, as
// postgres.Discover defines an instance.
func postmasters(procs []linux.Process) map[ProcKey]bool {
	pg := map[int]bool{}
	for _, p := range procs {
		if postgres.IsServerComm(p.Comm) {
			pg[p.PID] = true
		}
	}
	out := map[ProcKey]bool{}
	for _, p := range procs {
		if postgres.IsServerComm(p.Comm) && !pg[p.PPid] {
			out[keyOf(p)] = true
		}
	}
	return out
}

// mysqlServers returns the mysqld and mariadbd processes.
func mysqlServers(procs []linux.Process) map[ProcKey]bool {
	out := map[ProcKey]bool{}
	for _, p := range procs {
		if mysql.IsServerComm(p.Comm) {
			out[keyOf(p)] = true
		}
	}
	return out
}

// TopologyChanged reports whether a postmaster started, stopped or restarted
// since the discovery in base.
func TopologyChanged(base *snapshot.Snapshot, procs []linux.Process) bool {
	now := postmasters(procs)
	known := map[ProcKey]bool{}
	for _, in := range base.Postgres {
		if pm, ok := in.Postmaster(); ok {
			known[keyOf(pm.Process)] = true
		}
	}
	if len(now) != len(known) {
		return true
	}
	for k := range now {
		if !known[k] {
			return true
		}
	}
	return false
}

// Rebuild makes a snapshot from the last discovery and fresh processes: the
// host files are read again, every instance keeps its settings and shared
// segment and gets its current processes (postmaster and children, without
// those in skip: dbmem's own exiting sessions).
func Rebuild(fs linux.FS, base *snapshot.Snapshot, procs []linux.Process, skip map[int]bool, now time.Time) (*snapshot.Snapshot, error) {
	host, gaps, err := linux.ReadHost(fs)
	if err != nil {
		return nil, err
	}
	snap := &snapshot.Snapshot{Schema: snapshot.Schema, TakenAt: now.UTC(), Host: host, Gaps: gaps}
	byParent := map[int][]linux.Process{}
	for _, p := range procs {
		if !skip[p.PID] {
			byParent[p.PPid] = append(byParent[p.PPid], p)
		}
	}
	for _, in := range base.Postgres {
		snap.Postgres = append(snap.Postgres, refresh(fs, in, procs, byParent[in.PostmasterPID]))
	}
	snap.MySQL = refreshMySQL(base.MySQL, procs)
	carry(snap, base)
	return snap, nil
}

// carry copies into a status sample what only a discovery reads: the
// software beside the databases, the container, the postmasters' cgroups,
// the SysV segments, the poolers and the OOM guard. Every sample is then
// judged on the whole host, as check judges it (one verdict): a status
// tick that forgot the Redis beside PostgreSQL would advise strict
// overcommit.
func carry(snap, base *snapshot.Snapshot) {
	snap.Environment, snap.Cgroups, snap.Software = base.Environment, base.Cgroups, base.Software
	snap.SysV, snap.Poolers, snap.OOMGuard = base.SysV, base.Poolers, base.OOMGuard
}

// refreshMySQL copies the servers found at discovery with their processes
// read anew; a server gone since is left out (the next tick rediscovers).
func refreshMySQL(servers []*mysql.Instance, procs []linux.Process) []*mysql.Instance {
	byPID := map[int]linux.Process{}
	for _, p := range procs {
		byPID[p.PID] = p
	}
	var out []*mysql.Instance
	for _, in := range servers {
		if p, ok := byPID[in.PID]; ok && p.StartTicks == in.Process.StartTicks {
			out = append(out, in.Refreshed(p))
		}
	}
	return out
}

// refresh copies an instance with its processes replaced by fresh ones.
func refresh(fs linux.FS, in *postgres.Instance, procs []linux.Process, children []linux.Process) *postgres.Instance {
	c := *in
	c.Processes = nil
	old := map[ProcKey]postgres.Title{}
	for _, p := range in.Processes {
		old[keyOf(p.Process)] = p.Title
	}
	for _, p := range procs {
		if p.PID == in.PostmasterPID {
			c.Processes = append(c.Processes, postgres.Proc{Process: p, Title: postgres.Title{Role: postgres.RolePostmaster}})
		}
	}
	cluster := in.Settings.String("cluster_name")
	for _, p := range children {
		c.Processes = append(c.Processes, postgres.Proc{Process: p, Title: titleOf(p, old, cluster)})
	}
	if cg, ok, err := linux.ReadCgroupMemory(fs, in.PostmasterPID); err == nil && ok {
		c.Cgroup = &cg
	}
	return &c
}

// titleOf names a process's role: the role found at discovery (from
// pg_stat_activity when connected) for a process seen then, else from its
// title; the state and client come from the current title.
func titleOf(p linux.Process, old map[ProcKey]postgres.Title, cluster string) postgres.Title {
	parsed := postgres.ParseTitle(p.Title, cluster)
	prev, ok := old[keyOf(p)]
	if !ok || prev.Role == parsed.Role {
		return parsed
	}
	return prev
}
