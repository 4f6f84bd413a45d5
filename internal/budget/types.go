package budget

// Schema versions the budget object of `dbmem plan --json`.
const Schema = "dbmem.budget/v1"

// Line is one term of a sum: the limit's or the budget's.
type Line struct {
	Name    string `json:"name"`
	Formula string `json:"formula"`
	Bytes   uint64 `json:"bytes"`
	// Minus marks a term the limit subtracts.
	Minus bool `json:"minus,omitempty"`
}

// Evidence is a number a setting rests on and where it was read.
type Evidence struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// Setting is one value the budget proposes for the server.
type Setting struct {
	Name string `json:"name"`
	// Value is exactly what to write ("4MB", "off", "1.0").
	Value string `json:"value"`
	// Current is the value now (or the version's default on a what-if),
	// "" when unknown.
	Current  string     `json:"current,omitempty"`
	Formula  string     `json:"formula"`
	Why      string     `json:"why"`
	Evidence []Evidence `json:"evidence,omitempty"`
	// Restart is true when the server must restart for the value to take
	// effect (max_connections); the others take effect on a reload.
	Restart bool `json:"restart,omitempty"`
	// Asked is true when the value was given by the user (a what-if flag)
	// and kept.
	Asked bool `json:"asked,omitempty"`
}

// Role is one role's share: its measured cost and spills, and the setting
// proposed for it (none when it does not spill).
type Role struct {
	Name string `json:"name"`
	// Backends, BaselineMedianBytes and BaselineP95Bytes: its client
	// backends now and their private cost.
	Backends            int    `json:"backends"`
	BaselineMedianBytes uint64 `json:"baseline_median_bytes,omitempty"`
	BaselineP95Bytes    uint64 `json:"baseline_p95_bytes,omitempty"`
	Active              int    `json:"active"`
	// SpillBytes is the largest spill seen for it (a temporary file, or
	// the temp blocks one call wrote); 0 when none was seen.
	SpillBytes  uint64   `json:"spill_bytes,omitempty"`
	SpillSource []string `json:"spill_source,omitempty"`
	// Current is its own work_mem (ALTER ROLE ... SET), "" when none.
	Current string `json:"current,omitempty"`
	// Proposed is the work_mem to set for it, "" when none.
	Proposed string `json:"proposed,omitempty"`
	Formula  string `json:"formula,omitempty"`
	Why      string `json:"why"`
}

// Gap is something the budget could not read, and how to make it readable.
type Gap struct {
	What string `json:"what"`
	Why  string `json:"why"`
	Fix  string `json:"fix,omitempty"`
}

// PeerSetting is one value a rule of thumb sets.
type PeerSetting struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Formula string `json:"formula"`
}

// Peer is what a rule-of-thumb tool would set for the same host and
// profile, from its published source (cited), and the private memory its
// settings would take under the budget's concurrency.
type Peer struct {
	Tool     string        `json:"tool"`
	Source   string        `json:"source"`
	Profile  string        `json:"profile"`
	Settings []PeerSetting `json:"settings"`
	// TotalBytes is the budget's sum with the peer's memory settings in
	// place of dbmem's (same concurrency, baseline and limit); 0 when the
	// peer sets no work_mem (unknown inputs, see Missing).
	TotalBytes uint64 `json:"total_bytes,omitempty"`
	Fits       bool   `json:"fits"`
	// Missing says what the tool needs that is not known (the CPU count).
	Missing string `json:"missing,omitempty"`
}

// WorstCase is every connection at full work_mem at once, at the settings
// the budget proposes.
type WorstCase struct {
	Bytes   uint64 `json:"bytes"`
	Formula string `json:"formula"`
	// Why says how it differs from the budget.
	Why string `json:"why"`
}

// Result is an instance's budget.
type Result struct {
	Schema  string `json:"schema"`
	Subject string `json:"subject"`
	Engine  string `json:"engine"`
	// LimitBytes is what the server's private memory may use; LimitSource
	// says which bound it is ("RAM", "cgroup", "CommitLimit").
	LimitBytes   uint64 `json:"limit_bytes"`
	LimitSource  string `json:"limit_source"`
	LimitFormula string `json:"limit_formula"`
	LimitLines   []Line `json:"limit_lines"`
	// TotalBytes is the sum of Lines at the proposed settings.
	TotalBytes uint64 `json:"total_bytes"`
	Fits       bool   `json:"fits"`
	Lines      []Line `json:"lines"`
	// Concurrency is the active sessions the budget counts, and how it
	// was found.
	Concurrency       int       `json:"concurrency"`
	ConcurrencySource string    `json:"concurrency_source"`
	Measured          bool      `json:"measured"`
	Settings          []Setting `json:"settings"`
	Roles             []Role    `json:"roles,omitempty"`
	Peers             []Peer    `json:"peers"`
	// Differs says why dbmem's numbers differ from the peers'.
	Differs   []string  `json:"differs"`
	WorstCase WorstCase `json:"worst_case"`
	Notes     []string  `json:"notes,omitempty"`
	Gaps      []Gap     `json:"gaps,omitempty"`
}

// Setting returns the proposed setting name.
func (r Result) Setting(name string) (Setting, bool) {
	for _, s := range r.Settings {
		if s.Name == name {
			return s, true
		}
	}
	return Setting{}, false
}
