package audit

import (
	"cmp"
	"slices"
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/xray"
)

// Input is what the audit shows. Snapshot is required; the rest is shown
// when present.
type Input struct {
	// Command is what wrote the audit ("dbmem report", "dbmem check").
	Command  string
	Snapshot *snapshot.Snapshot
	Findings []finding.Finding
	Skipped  []advise.Skipped
	// Plan is `dbmem plan`'s result for the running instances; PlanNote
	// says why there is none when it is nil.
	Plan     *advise.PlanResult
	PlanNote string
	// Budgets are the instances' memory budgets, by postmaster PID.
	Budgets map[int]*budget.Result
	XRay    []xray.Result
	// Written is when the audit was written (zero: the snapshot's time).
	Written time.Time
}

// Ranked orders findings by the bytes at stake, largest first; those
// whose bytes are unknown follow; within each, the most severe first,
// then by id and subject, so the order is stable.
func Ranked(fs []finding.Finding) []finding.Finding {
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(a, b finding.Finding) int {
		if (a.BytesAtStake == nil) != (b.BytesAtStake == nil) {
			if a.BytesAtStake == nil {
				return 1
			}
			return -1
		}
		if a.BytesAtStake != nil && *a.BytesAtStake != *b.BytesAtStake {
			return cmp.Compare(*b.BytesAtStake, *a.BytesAtStake)
		}
		if a.Severity != b.Severity {
			return cmp.Compare(b.Severity, a.Severity)
		}
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Subject, b.Subject))
	})
	return out
}
