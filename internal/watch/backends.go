package watch

import (
	"sort"
	"time"

	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// Backend is one line of the per-backend view, as pg_activity shows one:
// who, since when, what it runs, and what it costs.
type Backend struct {
	PID           int    `json:"pid"`
	PostmasterPID int    `json:"postmaster_pid"`
	Port          *int   `json:"port,omitempty"`
	Role          string `json:"role"`
	User          string `json:"user,omitempty"`
	Database      string `json:"database,omitempty"`
	State         string `json:"state,omitempty"`
	// BackendStart and QueryStart come from pg_stat_activity; zero when
	// not connected.
	BackendStart time.Time `json:"backend_start,omitzero"`
	QueryStart   time.Time `json:"query_start,omitzero"`
	PrivateBytes *uint64   `json:"private_bytes,omitempty"`
	Exact        bool      `json:"exact"`
	// EstimateBytes is RssAnon + VmPTE + VmSwap at every tick (a series
	// that does not jump when Pss is read); StartTicks tells a reused PID.
	EstimateBytes *uint64 `json:"estimate_bytes,omitempty"`
	StartTicks    uint64  `json:"start_ticks"`
	// Query is shown on the screen only: never in JSON frames or records.
	Query string `json:"-"`
}

// MaxFrameBackends bounds the per-backend view a frame holds: the most
// expensive ones (a JSON frame of 1,000 backends would be mostly them).
const MaxFrameBackends = 200

// backends builds the per-backend view: every process of every instance
// but the postmaster, with pg_stat_activity's view where it was read,
// most expensive first.
func backends(s *sampler.Sample) []Backend {
	var out []Backend
	for _, in := range s.Snapshot.Postgres {
		acts := map[int]postgres.BackendActivity{}
		for _, a := range s.Backends[in.PostmasterPID] {
			acts[a.PID] = a
		}
		for _, p := range in.Processes {
			if p.Role == postgres.RolePostmaster {
				continue
			}
			out = append(out, backendLine(in, p, acts[p.PID]))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if largerOpt(out[i].PrivateBytes, out[j].PrivateBytes) {
			return true
		}
		if largerOpt(out[j].PrivateBytes, out[i].PrivateBytes) {
			return false
		}
		return out[i].PID < out[j].PID
	})
	if len(out) > MaxFrameBackends {
		out = out[:MaxFrameBackends]
	}
	return out
}

func backendLine(in *postgres.Instance, p postgres.Proc, a postgres.BackendActivity) Backend {
	b := Backend{PID: p.PID, PostmasterPID: in.PostmasterPID, Port: knownPort(in.Port), Role: string(p.Role),
		User: p.User, Database: p.Database, State: p.State}
	if a.PID == p.PID {
		b.User, b.Database, b.State = a.User, a.Database, a.State
		b.BackendStart, b.QueryStart, b.Query = a.BackendStart, a.QueryStart, a.Query
	}
	if cost, exact, ok := p.PrivateCost(); ok {
		b.PrivateBytes, b.Exact = &cost, exact
	}
	if v, ok := estimate(p.Process); ok {
		e := uint64(v)
		b.EstimateBytes = &e
	}
	b.StartTicks = p.StartTicks
	return b
}
