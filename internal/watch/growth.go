package watch

import (
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/growth"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/xray"
)

// Growing is a backend or a role whose private cost grows steadily, with
// when each limit would be reached at that rate.
type Growing struct {
	// Kind is "backend" (PID set) or "role" (the sum over an instance's
	// processes of that role).
	Kind          string          `json:"kind"`
	PID           int             `json:"pid,omitempty"`
	PostmasterPID int             `json:"postmaster_pid"`
	Port          *int            `json:"port,omitempty"`
	Role          string          `json:"role"`
	User          string          `json:"user,omitempty"`
	Database      string          `json:"database,omitempty"`
	Trend         growth.Trend    `json:"trend"`
	Forecast      growth.Forecast `json:"forecast"`
	// Cause says what grew between the backend's last two X-rays, when
	// there were two.
	Cause string `json:"cause,omitempty"`
}

// growthKey names a tracked series: a backend (PID and start time, so a
// reused PID is another), or a role of an instance (PID 0).
type growthKey struct {
	postmaster int
	pid        int
	start      uint64
	role       string
}

// tracker keeps the recent points of every backend and role, one point
// per step so that a long window stays small.
type tracker struct {
	opt    growth.Options
	step   time.Duration
	points map[growthKey][]growth.Point
}

func newTracker(o growth.Options) *tracker {
	o = o.Defaults()
	return &tracker{opt: o, step: max(o.Window/60, time.Second), points: map[growthKey][]growth.Point{}}
}

// add records the sample's private cost estimates (RssAnon + VmPTE +
// VmSwap, read at every tick: a series that does not jump when Pss is
// read) and forgets what is gone or older than the window.
func (t *tracker) add(snap *snapshot.Snapshot) {
	now := snap.TakenAt
	seen := map[growthKey]bool{}
	for _, in := range snap.Postgres {
		roles := map[string]float64{}
		for _, p := range in.Processes {
			v, ok := estimate(p.Process)
			if !ok || p.Role == postgres.RolePostmaster {
				continue
			}
			roles[string(p.Role)] += v
			t.put(growthKey{in.PostmasterPID, p.PID, p.StartTicks, string(p.Role)}, now, v, seen)
		}
		for role, v := range roles {
			t.put(growthKey{postmaster: in.PostmasterPID, role: role}, now, v, seen)
		}
	}
	for k := range t.points {
		if !seen[k] {
			delete(t.points, k)
		}
	}
}

func (t *tracker) put(k growthKey, at time.Time, v float64, seen map[growthKey]bool) {
	seen[k] = true
	ps := t.points[k]
	if n := len(ps); n > 0 && at.Sub(ps[n-1].At) < t.step {
		return
	}
	for len(ps) > 0 && at.Sub(ps[0].At) > t.opt.Window {
		ps = ps[1:]
	}
	t.points[k] = append(ps, growth.Point{At: at, Bytes: v})
}

func estimate(p linux.Process) (float64, bool) {
	s := p.Status
	if s.RssAnonBytes == nil || s.VmPTEBytes == nil || s.VmSwapBytes == nil {
		return 0, false
	}
	return float64(*s.RssAnonBytes + *s.VmPTEBytes + *s.VmSwapBytes), true
}

// growing lists the sustained growth in snap's instances, backends first
// (largest rate first), with forecasts against the instance's limits.
func (t *tracker) growing(snap *snapshot.Snapshot) []Growing {
	var out []Growing
	for _, in := range snap.Postgres {
		limits := Limits(snap.Host, in)
		for k, ps := range t.points {
			if k.postmaster != in.PostmasterPID {
				continue
			}
			tr := growth.Fit(ps, t.opt)
			if !tr.Sustained {
				continue
			}
			g := Growing{Kind: "role", PID: k.pid, PostmasterPID: in.PostmasterPID, Port: knownPort(in.Port), Role: k.role, Trend: tr,
				Forecast: growth.ForecastAt(tr.Rate, tr.From, tr.To, snap.TakenAt, limits)}
			if k.pid != 0 {
				g.Kind = "backend"
				if p, ok := in.Process(k.pid); ok {
					g.User, g.Database = p.User, p.Database
				}
			}
			out = append(out, g)
		}
	}
	sortGrowing(out)
	return out
}

func sortGrowing(gs []Growing) {
	for i := 1; i < len(gs); i++ {
		for j := i; j > 0 && before(gs[j], gs[j-1]); j-- {
			gs[j], gs[j-1] = gs[j-1], gs[j]
		}
	}
}

func before(a, b Growing) bool {
	if a.Kind != b.Kind {
		return a.Kind == "backend"
	}
	if a.Trend.Rate != b.Trend.Rate {
		return a.Trend.Rate > b.Trend.Rate
	}
	return a.PID < b.PID
}

// Limits are what an instance's growth would run into: the host's
// MemAvailable, its cgroup's limit less its usage, and CommitLimit less
// Committed_AS when the kernel enforces it (vm.overcommit_memory=2).
func Limits(h linux.Host, in *postgres.Instance) []growth.Limit {
	var out []growth.Limit
	if v, _, ok := h.Meminfo.Available(); ok {
		out = append(out, growth.Limit{Name: "MemAvailable", HeadroomBytes: float64(v)})
	}
	if cg := in.Cgroup; cg != nil && cg.LimitBytes != nil && cg.UsageBytes != nil {
		out = append(out, growth.Limit{Name: fmt.Sprintf("the cgroup limit (%s)", cg.LimitPath),
			HeadroomBytes: float64(*cg.LimitBytes) - float64(*cg.UsageBytes)})
	}
	m := h.Meminfo
	if mode, ok := h.Sysctls.Int("vm.overcommit_memory"); ok && mode == 2 && m.CommitLimitBytes != nil && m.CommittedASBytes != nil {
		out = append(out, growth.Limit{Name: "CommitLimit", HeadroomBytes: float64(*m.CommitLimitBytes) - float64(*m.CommittedASBytes),
			Note: "vm.overcommit_memory=2: allocations fail there"})
	}
	return out
}

// XRayParts is an X-ray taken during the watch: its parts by group, for
// the record (history keeps them as series per backend).
type XRayParts struct {
	PID           int              `json:"pid"`
	PostmasterPID int              `json:"postmaster_pid"`
	Port          *int             `json:"port,omitempty"`
	Role          string           `json:"role"`
	At            time.Time        `json:"at"`
	Parts         map[string]int64 `json:"parts"`
}

// NoteXRay keeps a backend's X-ray: with two of the same backend, its
// growth says what grew (xray.Compare). The next frame carries its parts.
func (w *Watcher) NoteXRay(r xray.Result) {
	if w.xrays == nil {
		w.xrays = map[int][2]xray.Backend{}
	}
	for _, b := range r.Backends {
		if b.Breakdown == nil {
			continue
		}
		w.xrays[b.PID] = [2]xray.Backend{w.xrays[b.PID][1], b}
		p := XRayParts{PID: b.PID, PostmasterPID: r.PostmasterPID, Port: knownPort(r.Port), Role: b.Role, At: b.DumpAt, Parts: map[string]int64{}}
		for _, part := range b.Breakdown.Parts {
			p.Parts[string(part.Group)] = int64(part.Bytes)
		}
		w.pendingXRays = append(w.pendingXRays, p)
	}
}

// withCauses says, for each growing backend X-rayed twice, what grew.
func (w *Watcher) withCauses(gs []Growing) []Growing {
	for i, g := range gs {
		if g.Kind != "backend" {
			continue
		}
		pair, ok := w.xrays[g.PID]
		if !ok {
			continue
		}
		if c, ok := xray.Compare(pair[0], pair[1]); ok && c.Verdict != "" {
			gs[i].Cause = c.Verdict + ": " + c.Why
		}
	}
	return gs
}
