package lab

import (
	"cmp"
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/units"
)

// OOMOptions choose the OOM experiment (`dbmem lab oom`). Zero values take
// the defaults of ResolveOOM.
type OOMOptions struct {
	Common
	// LimitBytes is the memory cgroup the cluster runs in: the "machine"
	// of the experiment (default 2 GiB, 1 GiB with Quick).
	LimitBytes uint64
	// SharedBuffersBytes: a fifth of the limit, as the field report's 1 GB
	// on a 5 GB machine.
	SharedBuffersBytes uint64
	// Clients are pgbench's (default 4); IdleSessions idle connections
	// that stand for everybody else's sessions (default 8, 4 with Quick).
	Clients, IdleSessions int
	// Before and After are the pgbench time around the runaway query
	// (default 10 s, 5 s with Quick).
	Before, After time.Duration
	// Rows the runaway sort generates (default the field report's 50
	// million).
	Rows int64
	// StrictOvercommit sets vm.overcommit_memory=2 for real for the
	// protected run, when RunOOM can prove it safe; without it the
	// protection is emulated with an address-space limit on the cluster.
	StrictOvercommit bool
	// HeadroomBytes is the commit left for everything else on the host
	// with StrictOvercommit (default DefaultHeadroom).
	HeadroomBytes uint64
}

// OOMConfig is the OOM experiment as run, defaults resolved.
type OOMConfig struct {
	Quick              bool    `json:"quick"`
	LimitBytes         uint64  `json:"cgroup_limit_bytes"`
	SharedBuffersBytes uint64  `json:"shared_buffers_bytes"`
	Scale              int     `json:"pgbench_scale"`
	Clients            int     `json:"pgbench_clients"`
	IdleSessions       int     `json:"idle_sessions"`
	BeforeSeconds      float64 `json:"before_seconds"`
	AfterSeconds       float64 `json:"after_seconds"`
	Rows               int64   `json:"rows"`
	WorkMem            string  `json:"work_mem"`
	Query              string  `json:"query"`
	StrictOvercommit   bool    `json:"strict_overcommit"`
	HeadroomBytes      uint64  `json:"headroom_bytes,omitempty"`
}

// FieldReportRows is the sort of the field report (seed 001): 50 million
// generated rows, work_mem at its maximum.
const FieldReportRows = 50_000_000

// RunawayWorkMem is the largest work_mem PostgreSQL accepts (the field
// report's SET work_mem TO '1.9995TB' shows as 2047GB).
const RunawayWorkMem = "2047GB"

// DefaultHeadroom is the commit kept for everything else on the host when
// strict overcommit is set for real: at least this, more when a process
// outside the lab is larger (see planStrict).
const DefaultHeadroom = 2 * units.GiB

// RunawayQuery is the field report's query for rows rows.
func RunawayQuery(rows int64) string {
	return fmt.Sprintf("EXPLAIN (ANALYZE, BUFFERS, SETTINGS) SELECT i FROM generate_series(1, %d) i ORDER BY i DESC", rows)
}

// ResolveOOM fills the defaults and checks the sizes.
func ResolveOOM(o OOMOptions) (OOMConfig, error) {
	c := OOMConfig{Quick: o.Quick, LimitBytes: o.LimitBytes, SharedBuffersBytes: o.SharedBuffersBytes, Clients: o.Clients,
		IdleSessions: o.IdleSessions, Rows: o.Rows, WorkMem: RunawayWorkMem, StrictOvercommit: o.StrictOvercommit}
	limit, idle, secs := 2*units.GiB, 8, 10.0
	if o.Quick {
		limit, idle, secs = units.GiB, 4, 5
	}
	c.LimitBytes = or(c.LimitBytes, limit)
	c.SharedBuffersBytes = or(c.SharedBuffersBytes, c.LimitBytes/5/(16<<20)*(16<<20))
	c.Clients = orInt(c.Clients, 4)
	c.IdleSessions = orInt(c.IdleSessions, idle)
	c.BeforeSeconds, c.AfterSeconds = secondsOr(o.Before, secs), secondsOr(o.After, secs)
	c.Rows = cmp.Or(c.Rows, FieldReportRows)
	// pgbench_accounts at about a third of shared_buffers: the load's data
	// stays cached, as the field report's prewarmed tables.
	c.Scale = max(1, int(c.SharedBuffersBytes/3/(15<<20)))
	c.Query = RunawayQuery(c.Rows)
	if c.StrictOvercommit {
		c.HeadroomBytes = or(o.HeadroomBytes, DefaultHeadroom)
	}
	return c, c.validate()
}

func (c OOMConfig) validate() error {
	switch {
	case c.LimitBytes < 512<<20:
		return fmt.Errorf("memory limit %s is too small: at least 512 MiB (shared_buffers, the load and the runaway query share it)", units.Bytes(c.LimitBytes))
	case c.SharedBuffersBytes < 32<<20 || c.SharedBuffersBytes > c.LimitBytes/2:
		return fmt.Errorf("shared_buffers %s: choose 32 MiB to half the memory limit (%s)", units.Bytes(c.SharedBuffersBytes), units.Bytes(c.LimitBytes/2))
	case c.Clients < 1 || c.Clients > 100 || c.IdleSessions < 0 || c.IdleSessions > 100:
		return fmt.Errorf("pgbench clients %d, idle sessions %d: choose 1 to 100 clients and 0 to 100 idle sessions", c.Clients, c.IdleSessions)
	case c.BeforeSeconds < 2 || c.AfterSeconds < 2:
		return fmt.Errorf("--before and --after must be at least 2s: pgbench reports once a second")
	case c.Rows < 1_000_000:
		return fmt.Errorf("%d rows: the runaway sort needs at least 1,000,000 to outgrow the limit", c.Rows)
	}
	return nil
}

func or(v, def uint64) uint64 {
	if v == 0 {
		return def
	}
	return v
}

func orInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func secondsOr(d time.Duration, def float64) float64 {
	if d <= 0 {
		return def
	}
	return d.Seconds()
}
