package xray

import (
	"fmt"
	"sort"
	"time"
)

// Change is what grew between two X-rays of one backend.
type Change struct {
	From, To time.Time
	// Deltas are each part's change in bytes, largest growth first.
	Deltas []Delta
	// Verdict names the kind of growth: "cache growth", "query memory (work_mem)",
	// "leak outside memory contexts", "growth in PostgreSQL's own
	// contexts", "JIT" or "page tables"; "" when nothing grew.
	Verdict string
	// Why explains it with the numbers.
	Why string
}

// Delta is one part's change.
type Delta struct {
	Group Group `json:"group"`
	Bytes int64 `json:"bytes"`
}

// Compare tells what grew between an earlier and a later X-ray of the
// same backend: catalog caches or the plan cache growing is cache growth
// (bounded by the relations and statements the session touches), memory
// outside the contexts growing is a leak (an extension's, or malloc
// keeping what was freed), the running query's is work_mem.
func Compare(before, after Backend) (Change, bool) {
	if before.Breakdown == nil || after.Breakdown == nil || before.PID != after.PID || !after.DumpAt.After(before.DumpAt) {
		return Change{}, false
	}
	c := Change{From: before.DumpAt, To: after.DumpAt}
	var grew int64
	for _, g := range GroupOrder {
		d := int64(after.Breakdown.Part(g)) - int64(before.Breakdown.Part(g))
		c.Deltas = append(c.Deltas, Delta{g, d})
		grew += max(d, 0)
	}
	sort.SliceStable(c.Deltas, func(i, j int) bool { return c.Deltas[i].Bytes > c.Deltas[j].Bytes })
	top := c.Deltas[0]
	if top.Bytes <= 0 {
		c.Why = "nothing grew between the two X-rays"
		return c, true
	}
	c.Verdict = verdicts[top.Group]
	c.Why = fmt.Sprintf("between the X-rays of %s and %s, %s grew by %s of %s", c.From.Format("15:04:05"), c.To.Format("15:04:05"),
		top.Group.Title(), bytesOf(top.Bytes), bytesOf(grew))
	return c, true
}

// Verdict names the kind of growth of a group (Compare).
func Verdict(g Group) string { return verdicts[g] }

var verdicts = map[Group]string{
	GroupCatalog: "cache growth", GroupPlan: "cache growth", GroupQuery: "query memory (work_mem)", GroupJIT: "JIT",
	GroupOther: "growth in PostgreSQL's own contexts", GroupOutside: "leak outside memory contexts", GroupPageTables: "page tables",
}

func bytesOf(b int64) string {
	f := float64(b)
	for _, u := range []string{"B", "KiB", "MiB", "GiB"} {
		if f < 1024 || u == "GiB" {
			if u == "B" {
				return fmt.Sprintf("%.0f B", f)
			}
			return fmt.Sprintf("%.1f %s", f, u)
		}
		f /= 1024
	}
	return ""
}
