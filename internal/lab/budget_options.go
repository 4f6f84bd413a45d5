package lab

import (
	"cmp"
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/units"
)

// BudgetOptions choose the budget experiment (`dbmem lab budget`). Zero
// values take the defaults of ResolveBudget.
type BudgetOptions struct {
	Common
	// LimitBytes is the memory cgroup the cluster runs in: the small
	// host of the experiment (default 2 GiB).
	LimitBytes uint64
	// OLTPClients are pgbench's select-only clients of the OLTP role
	// (default 30; 16 with Quick); Reporters the reporting role's
	// concurrent sessions (default 3).
	OLTPClients, Reporters int
	// Duration is the OLTP load's least time under each configuration
	// (default 45 s; 15 s with Quick); it runs as long as the reports.
	Duration time.Duration
	// Rounds is how many times each reporting session runs every query
	// (default 3; 1 with Quick): the same work under each configuration,
	// so that their temp bytes compare.
	Rounds int
	// FactRows is the reporting table's size (default 2,000,000; 600,000
	// with Quick): much larger than a small work_mem.
	FactRows int64
}

// BudgetConfig is the budget experiment as run, defaults resolved.
type BudgetConfig struct {
	Quick              bool    `json:"quick"`
	LimitBytes         uint64  `json:"cgroup_limit_bytes"`
	SharedBuffersBytes uint64  `json:"shared_buffers_bytes"`
	MaxConnections     int     `json:"max_connections"`
	OLTPClients        int     `json:"oltp_clients"`
	Reporters          int     `json:"reporters"`
	RunSeconds         float64 `json:"run_seconds"`
	Rounds             int     `json:"rounds"`
	PgbenchScale       int     `json:"pgbench_scale"`
	FactRows           int64   `json:"fact_rows"`
	DimRows            int64   `json:"dim_rows"`
	// Profile is PGTune's workload profile the lab types in its form.
	Profile string `json:"pgtune_profile"`
	// SmallWorkMem is the uniform-small configuration's work_mem.
	SmallWorkMem string `json:"small_work_mem"`
	// Queries are the reporting role's queries, run in turn.
	Queries []ReportQuery `json:"queries"`
}

// ReportQuery is one of the reporting role's queries.
type ReportQuery struct {
	Name string `json:"name"`
	SQL  string `json:"sql"`
}

// Roles of the budget experiment's workload.
const (
	OLTPRole   = "oltp"
	ReportRole = "report"
)

// reportQueries are a sort and a hash join with a hash aggregate over the
// fact table, and a hash aggregate with one group per dimension row.
func reportQueries(rows int64) []ReportQuery {
	return []ReportQuery{
		{"sort", fmt.Sprintf("SELECT id, payload FROM facts ORDER BY payload OFFSET %d", rows-1)},
		{"hash join", "SELECT d.grp, count(*), sum(f.amount) FROM facts f JOIN dims d ON d.id = f.dim_id GROUP BY d.grp"},
		{"hash aggregate", "SELECT dim_id, count(*), sum(amount) FROM facts GROUP BY dim_id ORDER BY 3 DESC LIMIT 10"},
	}
}

// ResolveBudget fills the defaults and checks the sizes.
func ResolveBudget(o BudgetOptions) (BudgetConfig, error) {
	c := BudgetConfig{Quick: o.Quick, LimitBytes: or(o.LimitBytes, 2*units.GiB), OLTPClients: o.OLTPClients, Reporters: orInt(o.Reporters, 3),
		FactRows: o.FactRows, MaxConnections: 100, Profile: "mixed", SmallWorkMem: "4MB"}
	clients, secs, rows, rounds := 30, 45.0, int64(2_000_000), 3
	if o.Quick {
		clients, secs, rows, rounds = 16, 15, 600_000, 1
	}
	c.Rounds = orInt(o.Rounds, rounds)
	c.OLTPClients = orInt(c.OLTPClients, clients)
	c.RunSeconds = secondsOr(o.Duration, secs)
	c.FactRows = cmp.Or(c.FactRows, rows)
	c.DimRows = max(c.FactRows/2, 1)
	c.SharedBuffersBytes = c.LimitBytes / 4 / units.MiB * units.MiB // PGTune's RAM / 4
	c.PgbenchScale = max(1, int(c.SharedBuffersBytes/8/(15<<20)))
	c.Queries = reportQueries(c.FactRows)
	return c, c.validate()
}

func (c BudgetConfig) validate() error {
	switch {
	case c.LimitBytes < units.GiB:
		return fmt.Errorf("memory limit %s is too small: at least 1 GiB (shared_buffers, the OLTP clients and the reports share it)", units.Bytes(c.LimitBytes))
	case c.OLTPClients < 1 || c.OLTPClients > 80:
		return fmt.Errorf("%d OLTP clients: choose 1 to 80 (max_connections is %d)", c.OLTPClients, c.MaxConnections)
	case c.Reporters < 1 || c.Reporters > 10:
		return fmt.Errorf("%d reporting sessions: choose 1 to 10", c.Reporters)
	case c.Rounds < 1 || c.Rounds > 20:
		return fmt.Errorf("%d rounds: choose 1 to 20", c.Rounds)
	case c.RunSeconds < 5:
		return fmt.Errorf("--duration must be at least 5s: pgbench reports its rate once a second")
	case c.FactRows < 100_000 || c.FactRows > 50_000_000:
		return fmt.Errorf("%d fact rows: choose 100,000 to 50,000,000 (much larger than work_mem, loaded in the run's time)", c.FactRows)
	}
	return nil
}
