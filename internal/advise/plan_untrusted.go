package advise

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/units"
)

// LeftOut is an instance the plan does not plan for: its process, binary
// or data directory is not a trusted server account's, so its settings
// (which anyone can write for a process they start) shape nothing
// host-wide.
type LeftOut struct {
	Subject string `json:"subject"`
	// Why names what is not trusted and the flag that trusts it.
	Why string `json:"why"`
	// Need is what it would have added to the huge page pool.
	Need HugePageNeed `json:"need"`
}

// leaveOutUntrusted keeps the instances a trusted account runs; each
// other one is recorded in r.LeftOut with a note. The huge pages it holds
// now stay in the pool as pages in use by others (the kernel's count), and
// its shared memory in 4 KiB pages stays in Committed_AS.
func leaveOutUntrusted(all []PlannedInstance, r *PlanResult) []PlannedInstance {
	var kept []PlannedInstance
	for _, pi := range all {
		if pi.Untrusted == "" {
			kept = append(kept, pi)
			continue
		}
		r.LeftOut = append(r.LeftOut, LeftOut{Subject: pi.Subject, Why: pi.Untrusted, Need: pi.Need})
		r.Notes = append(r.Notes, fmt.Sprintf("%s left out of the host-wide plan (huge page pool, overcommit, THP): %s. "+
			"Its configuration asks for %d huge pages of %s (%s), not planned; the pages it holds now count as in use by others",
			pi.Subject, pi.Untrusted, pi.Need.Pages, units.Bytes(pi.Need.PageSizeBytes), units.Bytes(pi.Need.SharedBytes)))
	}
	return kept
}
