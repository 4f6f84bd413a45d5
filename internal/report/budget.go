package report

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/units"
)

// InstanceBudget ties a memory budget to its instance (--json).
type InstanceBudget struct {
	PostmasterPID int `json:"postmaster_pid"`
	budget.Result
}

// writeBudget is the instance's budget in a few lines: the limit, what the
// settings it runs with take under the measured concurrency, what the
// budget would set, the roles that spill, the worst case. `dbmem plan`
// shows the whole of it.
func writeBudget(b *strings.Builder, r *budget.Result, st style) {
	if r == nil {
		return
	}
	verdict := "fits"
	if !r.Fits {
		verdict = st.warn("does not fit")
	}
	fmt.Fprintf(b, "  Budget       limit %s (%s); %s with %d active sessions at the budget's settings, %s\n",
		units.Bytes(r.LimitBytes), r.LimitSource, units.Bytes(r.TotalBytes), r.Concurrency, verdict)
	var changes []string
	for _, s := range r.Settings {
		if s.Value != s.Current {
			changes = append(changes, fmt.Sprintf("%s %s -> %s", s.Name, s.Current, s.Value))
		}
	}
	if len(changes) == 0 {
		changes = append(changes, "none: the settings fit")
	}
	fmt.Fprintf(b, "               changes: %s\n", strings.Join(changes, ", "))
	var roles []string
	for _, x := range r.Roles {
		if x.Proposed != "" {
			roles = append(roles, fmt.Sprintf("%q work_mem %s (spills %s)", x.Name, x.Proposed, units.Bytes(x.SpillBytes)))
		}
	}
	if len(roles) > 0 {
		fmt.Fprintf(b, "               roles: %s\n", inert.Text(strings.Join(roles, ", ")))
	}
	fmt.Fprintf(b, "               worst case %s (every connection at full work_mem); not read: %d (dbmem plan shows all, with PGTune's figures)\n",
		units.Bytes(r.WorstCase.Bytes), len(r.Gaps))
}
