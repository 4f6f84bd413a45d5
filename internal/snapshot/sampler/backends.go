package sampler

import (
	"context"
	"fmt"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
)

// BackendSource reads every backend's activity and query over the
// verified connection (postgres.Connector.Backends).
type BackendSource interface {
	Backends(ctx context.Context, in *postgres.Instance) (postgres.BackendsAnswer, error)
}

// ReadBackends asks each connected instance for its backends' activity.
// It returns them by postmaster PID, the sessions that served the reads
// (to leave out while they exit), and a gap per instance that failed.
func (s *Sampler) ReadBackends(ctx context.Context, ins []*postgres.Instance) (map[int][]postgres.BackendActivity, []int, []linux.Gap) {
	if s.Backends == nil {
		return nil, nil, nil
	}
	out := map[int][]postgres.BackendActivity{}
	var sessions []int
	var gaps []linux.Gap
	for _, in := range ins {
		if !in.Connected {
			continue
		}
		a, err := s.Backends.Backends(ctx, in)
		if err != nil {
			gaps = append(gaps, linux.Gap{What: fmt.Sprintf("queries of postmaster %d's backends", in.PostmasterPID), Why: err.Error(), Kind: linux.KindOf(err)})
			continue
		}
		out[in.PostmasterPID] = a.Backends
		if a.SessionPID > 0 {
			sessions = append(sessions, a.SessionPID)
		}
	}
	return out, sessions, gaps
}
