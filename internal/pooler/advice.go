package pooler

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/units"
)

// AdviceInput is what the pooler advice needs; it names no engine's
// internals, so a MySQL budget can ask it too (its pooler: ProxySQL).
type AdviceInput struct {
	Engine string // "PostgreSQL", "MariaDB", ...
	// MaxConnections is the server's limit; Reserved the connections kept
	// for superusers (superuser_reserved_connections + reserved_connections).
	MaxConnections, Reserved int
	// BaselineBytes is the measured private cost of one idle backend (the
	// budget's median or p95), BaselineFrom says which.
	BaselineBytes uint64
	BaselineFrom  string
	// BudgetBytes is what the database may use in all.
	BudgetBytes uint64
	// PeakActive is the most sessions seen active at once; PeakFrom says
	// where (pg_stat_activity samples, watch history). 0 with PeakFrom ""
	// is unknown.
	PeakActive int
	PeakFrom   string
	// Limit is ServerConnections' answer for the instance, when a pooler
	// runs on the host (nil: none found).
	Limit *Limit
}

// Advice is the pooler advice for one instance.
type Advice struct {
	// Kind: "add-pooler", "pooler-ok", "pooler-findings" or "none".
	Kind  string `json:"kind"`
	Title string `json:"title"`
	// PoolSize is the advised pool (server connections), 0 when none.
	PoolSize int `json:"pool_size,omitempty"`
	// SavedBytes is what the server stops paying: (max_connections -
	// pool) backends at the baseline.
	SavedBytes uint64   `json:"saved_bytes,omitempty"`
	Formula    string   `json:"formula"`
	Evidence   []string `json:"evidence,omitempty"`
	// Findings are problems with the poolers that exist.
	Findings []Finding `json:"findings,omitempty"`
	// Changes are pool settings that would fix a finding, for
	// `dbmem pooler set` (PgBouncer only).
	Changes []Suggestion `json:"changes,omitempty"`
}

// Suggestion is a change to one PgBouncer, and the command that makes it.
type Suggestion struct {
	PID     int    `json:"pid"`
	Change  Change `json:"change"`
	Command string `json:"command"`
	Why     string `json:"why"`
}

// Finding is one problem with the poolers in front of an instance.
type Finding struct {
	Severity string `json:"severity"` // "warning", "info"
	Title    string `json:"title"`
	Formula  string `json:"formula,omitempty"`
	Fix      string `json:"fix"`
}

// Thresholds of the advice: backends at max_connections that take at
// least ShareOfBudget of the budget, while the peak of active sessions is
// at most PeakShare of max_connections.
const (
	ShareOfBudget = 0.25
	PeakShare     = 0.25
	// Headroom over the busiest moment seen when sizing a pool.
	Headroom = 1.25
)

// Advise decides whether a pooler would help and how large its pool
// should be, or what is wrong with the poolers that exist. Pure.
func Advise(in AdviceInput) Advice {
	if in.Limit != nil && (len(in.Limit.Pools) > 0 || len(in.Limit.Gaps) > 0) {
		return existing(in)
	}
	return addPooler(in)
}

// addPooler: with no pooler, advise one when idle backends are costly.
func addPooler(in AdviceInput) Advice {
	if in.MaxConnections <= 0 || in.BaselineBytes == 0 || in.BudgetBytes == 0 {
		return Advice{Kind: "none", Title: "no pooler advice: max_connections, the backend baseline or the budget is unknown"}
	}
	all := uint64(in.MaxConnections) * in.BaselineBytes
	share := float64(all) / float64(in.BudgetBytes)
	base := fmt.Sprintf("max_connections %d x %s per backend (%s) = %s, %.0f%% of the budget %s",
		in.MaxConnections, units.Bytes(in.BaselineBytes), in.BaselineFrom, units.Bytes(all), share*100, units.Bytes(in.BudgetBytes))
	if in.PeakFrom == "" {
		return Advice{Kind: "none", Title: "no pooler advice: the peak of active sessions is unknown", Formula: base}
	}
	if share < ShareOfBudget || float64(in.PeakActive) > PeakShare*float64(in.MaxConnections) {
		return Advice{Kind: "none", Title: "no pooler needed: idle backends take a small share of the budget, or most connections are busy",
			Formula: fmt.Sprintf("%s; peak active %d (%s)", base, in.PeakActive, in.PeakFrom)}
	}
	pool := max(2, ceil(float64(in.PeakActive)*Headroom))
	saved := uint64(in.MaxConnections-min(pool, in.MaxConnections)) * in.BaselineBytes
	return Advice{Kind: "add-pooler", PoolSize: pool, SavedBytes: saved,
		Title: fmt.Sprintf("put a pooler (PgBouncer, pool_mode transaction) in front of %s with a pool of %d server connections", in.Engine, pool),
		Formula: fmt.Sprintf("%s; peak active %d (%s): pool = ceil(%d x %.2f) = %d; saves (%d - %d) x %s = %s",
			base, in.PeakActive, in.PeakFrom, in.PeakActive, Headroom, pool, in.MaxConnections, pool, units.Bytes(in.BaselineBytes), units.Bytes(saved)),
		Evidence: []string{
			"a server connection is a backend the server pays for, idle or not; a pooler's clients are not",
			"transaction pooling shares a backend between clients between transactions (session state such as prepared statements " +
				"and SET needs session mode or PgBouncer 1.21+'s max_prepared_statements)",
		}}
}

func ceil(f float64) int {
	n := int(f)
	if float64(n) < f {
		n++
	}
	return n
}
