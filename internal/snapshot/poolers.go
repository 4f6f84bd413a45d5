package snapshot

import (
	"context"
	"fmt"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pooler"
)

// readPoolers finds the connection poolers (PgBouncer, pgcat, Odyssey)
// and reads their configuration and, with o.PoolerConsole, PgBouncer's
// admin console. Their problems are gaps of the snapshot.
func (s *Snapshot) readPoolers(ctx context.Context, o Options) {
	found, gaps, err := pooler.Discover(ctx, o.FS, pooler.Options{Console: o.PoolerConsole})
	if err != nil {
		s.Gaps = append(s.Gaps, linux.Gap{What: "connection poolers", Why: err.Error(), Kind: linux.KindOf(err)})
		return
	}
	s.Poolers = found
	s.Gaps = append(s.Gaps, gaps...)
	for _, p := range found {
		for _, g := range p.Gaps {
			s.Gaps = append(s.Gaps, linux.Gap{What: fmt.Sprintf("%s %d: %s", p.Kind, p.PID, g.What), Why: g.Why})
		}
	}
}
