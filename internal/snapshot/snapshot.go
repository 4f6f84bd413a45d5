package snapshot

import (
	"context"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
)

// Schema versions the JSON form of a Snapshot. Bump it when a field changes
// meaning or disappears; adding fields keeps the version.
const Schema = "dbmem.snapshot/v1"

// Snapshot is everything dbmem read at one moment.
type Snapshot struct {
	Schema   string               `json:"schema"`
	TakenAt  time.Time            `json:"taken_at"`
	Elapsed  time.Duration        `json:"elapsed_ns"`
	Host     linux.Host           `json:"host"`
	Postgres []*postgres.Instance `json:"postgres"`
	// Pss says whether smaps_rollup was read for every process.
	Pss  bool        `json:"pss"`
	Gaps []linux.Gap `json:"gaps,omitempty"`
}

// Options choose what to read and how.
type Options struct {
	FS linux.FS
	// Live supplies settings from running servers (a postgres.Connector, or
	// a bundle); nil reads configuration files only.
	Live postgres.LiveSource
	// Pss reads smaps_rollup for every database process (exact Pss_Anon, but
	// it walks page tables: about 40 ms per backend with 3 GiB touched).
	Pss bool
	Now func() time.Time
}

// Take reads the host and every instance. Only an unreadable /proc/meminfo
// or process list is an error; everything else missing becomes a gap.
func Take(ctx context.Context, o Options) (*Snapshot, error) {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	start := time.Now()
	s := &Snapshot{Schema: Schema, TakenAt: now().UTC(), Pss: o.Pss}
	host, gaps, err := linux.ReadHost(o.FS)
	if err != nil {
		return nil, err
	}
	s.Host, s.Gaps = host, gaps
	ins, gaps, err := postgres.Discover(ctx, o.FS, postgres.Options{
		Live: o.Live, Process: linux.ProcessOptions{Rollup: o.Pss},
	})
	if err != nil {
		return nil, err
	}
	s.Postgres = ins
	s.Gaps = append(s.Gaps, gaps...)
	s.Elapsed = time.Since(start)
	return s, nil
}
