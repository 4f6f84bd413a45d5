package watch

import (
	"time"

	"github.com/dbmem/dbmem/internal/growth"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
	"github.com/dbmem/dbmem/internal/xray"
)

// Watcher turns successive samples into frames: it remembers the previous
// counters (for rates), the last exact private costs and when each finding
// was first seen. Not safe for concurrent use.
type Watcher struct {
	// Top is the length of the top lists (default 5).
	Top int
	// Growth says what counts as sustained growth of a backend's or a
	// role's private cost (growth.Options defaults: 30 min window, 10 min
	// of points at least).
	Growth growth.Options

	tracker *tracker
	// xrays are the last two X-rays of each backend, by PID.
	xrays map[int][2]xray.Backend
	// pendingXRays go into the next frame.
	pendingXRays []XRayParts

	tick     int
	prev     *sampler.Sample
	firstOOM *uint64
	exact    map[int]pssCost // by postmaster PID
	// exactMySQL and mysqlRead are by server PID: the last exact private
	// figure, and when its status variables were last read.
	exactMySQL map[int]pssCost
	mysqlRead  map[int]time.Time
	lastSmaps  *SmapsPass
	seen       map[string]time.Time
}

type pssCost struct {
	bytes uint64
	at    time.Time
}

// Frame computes the view of s.
func (w *Watcher) Frame(s *sampler.Sample) Frame {
	w.tick++
	snap := s.Snapshot
	f := Frame{Schema: FrameSchema, At: snap.TakenAt, Tick: w.tick, Mode: s.Mode.String(), Cost: s.Cost, Gaps: snap.Gaps}
	if s.Mode == sampler.Smaps {
		w.lastSmaps = &SmapsPass{At: snap.TakenAt, Cost: s.Cost}
	}
	f.LastSmaps = w.lastSmaps
	f.Host = w.host(s)
	f.Instances = w.instances(snap)
	setActive(f.Instances, s.Backends)
	f.MySQL = w.mysqlServers(snap, s.Mode)
	top := w.Top
	if top <= 0 {
		top = 5
	}
	procs := topProcs(s)
	f.TopPrivate = topBy(known(procs, func(p Proc) bool { return p.PrivateBytes != nil }), top,
		func(a, b Proc) bool { return *a.PrivateBytes > *b.PrivateBytes })
	f.TopOOM = topBy(known(procs, func(p Proc) bool { return p.OOMScore != nil }), top,
		func(a, b Proc) bool { return *a.OOMScore > *b.OOMScore })
	f.Backends = backends(s)
	if w.tracker == nil {
		w.tracker = newTracker(w.Growth)
	}
	w.tracker.add(snap)
	f.Growing = w.withCauses(w.tracker.growing(snap))
	f.XRays, w.pendingXRays = w.pendingXRays, nil
	f.Findings = w.findings(s)
	w.prev = s
	return f
}

func (w *Watcher) host(s *sampler.Sample) HostFrame {
	h := s.Snapshot.Host
	m := h.Meminfo
	hf := HostFrame{
		Hostname: h.Hostname, MemTotalBytes: m.MemTotalBytes,
		PageTablesBytes: m.PageTablesBytes, CommittedASBytes: m.CommittedASBytes, CommitLimitBytes: m.CommitLimitBytes,
		SwapTotalBytes: m.SwapTotalBytes,
	}
	if v, est, ok := m.Available(); ok {
		hf.MemAvailableBytes, hf.MemAvailableEstimated = &v, est
	}
	if v, ok := m.SwapUsedBytes(); ok {
		hf.SwapUsedBytes = &v
	}
	if v, ok := h.Sysctls.Int("vm.overcommit_memory"); ok {
		hf.OvercommitMemory = &v
	}
	for _, p := range h.HugePools {
		if n, ok := p.InUse(); ok && p.Node < 0 {
			hf.HugePages = append(hf.HugePages, HugePages{PageSizeBytes: p.PageSizeBytes, Total: p.Total + p.Surplus, InUse: n})
		}
	}
	if s.VMStat.HasOOMKill {
		if w.firstOOM == nil {
			v := s.VMStat.OOMKill
			w.firstOOM = &v
		}
		hf.OOMKills = new(s.VMStat.OOMKill)
		hf.OOMKillsNew = new(s.VMStat.OOMKill - min(*w.firstOOM, s.VMStat.OOMKill))
	}
	if p := w.prev; p != nil {
		if before, _, ok := p.Snapshot.Host.Meminfo.Available(); ok && hf.MemAvailableBytes != nil {
			hf.MemAvailableDelta = new(int64(*hf.MemAvailableBytes) - int64(before))
		}
		dt := s.Snapshot.TakenAt.Sub(p.Snapshot.TakenAt).Seconds()
		if dt > 0 && s.VMStat.Has && p.VMStat.Has {
			hf.SwapInPerSec = rate(p.VMStat.PswpIn, s.VMStat.PswpIn, dt)
			hf.SwapOutPerSec = rate(p.VMStat.PswpOut, s.VMStat.PswpOut, dt)
			hf.Rates = true
		}
	}
	return hf
}

// rate is the per-second increase of a counter, 0 if it went backwards.
func rate(before, after uint64, seconds float64) float64 {
	if after < before {
		return 0
	}
	return float64(after-before) / seconds
}

func (w *Watcher) instances(snap *snapshot.Snapshot) []Instance {
	if w.exact == nil {
		w.exact = map[int]pssCost{}
	}
	var out []Instance
	for _, in := range snap.Postgres {
		sum := postgres.Summarize(in)
		fi := Instance{
			PostmasterPID: in.PostmasterPID, Port: knownPort(in.Port), DataDir: in.DataDir, Version: in.Version,
			Processes: sum.Processes, Connections: sum.ClientBackends,
			PrivateBytes: sum.PrivateBytes, PrivateExact: sum.PrivateExact && snap.Pss, VmPTEBytes: sum.VmPTEBytes,
			EstimateBytes: estimateOf(in),
		}
		if v, ok := in.Settings.Int("max_connections"); ok {
			fi.MaxConnections = &v
		}
		if in.Shared != nil {
			fi.SharedBytes, fi.SharedPageBytes = new(in.Shared.SizeBytes), new(in.Shared.PageSizeBytes)
		}
		if cg := in.Cgroup; cg != nil && cg.LimitBytes != nil {
			fi.CgroupLimitBytes, fi.CgroupUsageBytes = cg.LimitBytes, cg.UsageBytes
		}
		if fi.PrivateExact {
			w.exact[in.PostmasterPID] = pssCost{*sum.PrivateBytes, snap.TakenAt}
		}
		if e, ok := w.exact[in.PostmasterPID]; ok {
			at := e.at
			fi.PssPrivateBytes, fi.PssAt = new(e.bytes), &at
		}
		out = append(out, fi)
	}
	return out
}

// estimateOf is RssAnon + VmPTE + VmSwap over the instance's processes,
// nil when one of them lacks a line.
func estimateOf(in *postgres.Instance) *uint64 {
	var v uint64
	for _, p := range in.Processes {
		s := p.Status
		if s.RssAnonBytes == nil || s.VmPTEBytes == nil || s.VmSwapBytes == nil {
			return nil
		}
		v += *s.RssAnonBytes + *s.VmPTEBytes + *s.VmSwapBytes
	}
	return &v
}

// knownPort is a port that was read, nil for 0 (not known).
func knownPort(p int) *int {
	if p <= 0 {
		return nil
	}
	return &p
}

// topProcs lists every process with its PostgreSQL role and port when it
// belongs to an instance (a MySQL server: its flavor and port); those use
// the instance's (possibly exact) reading.
func topProcs(s *sampler.Sample) []Proc {
	pg := map[int]Proc{}
	for _, in := range s.Snapshot.Postgres {
		for _, p := range in.Processes {
			pg[p.PID] = procLine(p.Process, string(p.Role), knownPort(in.Port))
		}
	}
	for _, in := range s.Snapshot.MySQL {
		var port *int
		if p, ok := knownInt(in, "port"); ok {
			port = knownPort(int(p))
		}
		pg[in.PID] = procLine(in.Process, string(in.Flavor), port)
	}
	out := make([]Proc, 0, len(s.Processes))
	for _, p := range s.Processes {
		if l, ok := pg[p.PID]; ok {
			out = append(out, l)
			continue
		}
		out = append(out, procLine(p, "", nil))
	}
	return out
}

func procLine(p linux.Process, role string, port *int) Proc {
	l := Proc{PID: p.PID, Comm: p.Comm, Role: role, Port: port, OOMScore: p.OOMScore, OOMScoreAdj: p.OOMScoreAdj}
	if cost, exact, ok := p.PrivateCost(); ok {
		l.PrivateBytes, l.Exact = &cost, exact
	}
	return l
}

// setActive counts each instance's active client backends in the
// activity read at this tick, where it was read.
func setActive(ins []Instance, acts map[int][]postgres.BackendActivity) {
	for i := range ins {
		a, ok := acts[ins[i].PostmasterPID]
		if !ok {
			continue
		}
		n := 0
		for _, b := range a {
			if b.BackendType == "client backend" && b.State == "active" {
				n++
			}
		}
		ins[i].ActiveSessions = &n
	}
}
