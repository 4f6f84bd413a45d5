package advise

import (
	"encoding/json"
	"fmt"
)

// NotPlanned is a setting a partial input leaves out: what was missing,
// why the setting needs it, and how to give it.
type NotPlanned struct {
	Settings string `json:"settings"`
	Missing  string `json:"missing"`
	Why      string `json:"why"`
	Fix      string `json:"fix"`
}

func (n NotPlanned) String() string {
	return fmt.Sprintf("%s: %s; %s. %s", n.Settings, n.Missing, n.Why, n.Fix)
}

// MarshalJSON writes swap_bytes as null when the swap is unknown: an
// unknown is never 0.
func (h HostFacts) MarshalJSON() ([]byte, error) {
	type plain HostFacts
	if h.SwapUnknown == "" {
		return json.Marshal(plain(h))
	}
	return json.Marshal(struct {
		plain
		SwapBytes *uint64 `json:"swap_bytes"`
	}{plain: plain(h)})
}

// swapMissing records that strict overcommit cannot be sized without the
// swap: CommitLimit counts it in full.
func swapMissing(h HostFacts, r *PlanResult) {
	r.NotPlanned = append(r.NotPlanned, NotPlanned{
		Settings: "vm.overcommit_memory, vm.overcommit_ratio",
		Missing:  "swap unknown (" + h.SwapUnknown + ")",
		Why:      "CommitLimit = (RAM - huge pages) x ratio / 100 + swap counts the swap in full, so no ratio can be sized without it",
		Fix:      "Give the host's swap with --swap SIZE (0 when it has none).",
	})
}
